/**
 * Every product's attributes and statuses (a seeded product's computed from the seed, its statuses
 * in typed arrays), the products created through POST /products, and their review by the
 * platform. A new product waits `delayMs` on the simulator's clock (or, under the manual policy
 * or a hold, until an admin decides), then the rule of reviewRule.ts decides it. Reviews are
 * applied lazily, when a product's statuses are read: no timers, so a test that moves the clock
 * sees the outcome at once.
 */
import { conflict } from './httpError.ts';
import type { PlatformStatus, ProductImage, ProductStatus, SitePricing } from './model.ts';
import { type CreatedProduct, seededImages, seededSitePricing } from './newProduct.ts';
import {
  AWAITING_REVIEW,
  DEFAULT_DECLINED_REASON,
  outcomeOf,
  type ReviewDecision,
  type ReviewOutcome,
  reviewByRule,
} from './reviewRule.ts';
import { type ProductSeed, seededSku } from './seed.ts';

const PLATFORM_STATUSES: readonly PlatformStatus[] = ['pending', 'active', 'inactive', 'declined'];
const STATUSES: readonly ProductStatus[] = ['active', 'inactive', 'pending'];

/** `auto`: decided by the rule after the delay; `manual`: waits for an admin decision. */
export type ReviewMode = 'auto' | 'manual';
export const REVIEW_MODES: readonly ReviewMode[] = ['auto', 'manual'];
export const DEFAULT_REVIEW_DELAY_MS = 5000;
export const MAX_REVIEW_DELAY_MS = 2_147_483_647;

export interface ReviewPolicy {
  readonly mode: ReviewMode;
  /** Time from creation to the automatic review, in ms of the simulator's clock (0 = next read). */
  readonly delayMs: number;
}

/** `waiting`: due at `due_at`; `held`: waits for an admin; `decided`: over. */
export type ReviewStage = 'waiting' | 'held' | 'decided';

/** Where a created product's review stands (the admin endpoint's answer). */
export interface ReviewRecord {
  sku: string;
  stage: ReviewStage;
  status: ProductStatus;
  platform_status: PlatformStatus;
  declined_reason: string | null;
  /** ISO 8601, simulator clock. */
  created_at: string;
  /** When the automatic review happens (stage `waiting`), else null. */
  due_at: string | null;
  decision: ReviewDecision | null;
  /** `rule`: the automatic review; `admin`: an admin decision. */
  decided_by: 'rule' | 'admin' | null;
  decided_at: string | null;
}

interface Entry {
  readonly product: CreatedProduct;
  readonly createdAt: number;
  /** null: held (or not started yet). */
  dueAt: number | null;
  outcome: ReviewOutcome;
  decided: { decision: ReviewDecision; by: 'rule' | 'admin'; at: number } | null;
}

/** Throws RangeError naming what is wrong with a (partial) review policy. */
export function checkReviewPolicy(policy: Partial<ReviewPolicy>): void {
  if (policy.mode !== undefined && !REVIEW_MODES.includes(policy.mode)) {
    throw new RangeError(`review mode must be ${REVIEW_MODES.join(' or ')}; got ${policy.mode}`);
  }
  const d = policy.delayMs;
  if (d !== undefined && (!Number.isInteger(d) || d < 0 || d > MAX_REVIEW_DELAY_MS)) {
    throw new RangeError(
      `review delayMs must be an integer in 0..${MAX_REVIEW_DELAY_MS}; got ${d}`,
    );
  }
}

export interface ProductBookOptions {
  readonly seed: ProductSeed;
  /** Seeded products: positions 0..seeded-1; created products come after them. */
  readonly seeded: number;
  readonly now: () => number;
  readonly policy: ReviewPolicy;
}

export class ProductBook {
  readonly #seed: ProductSeed;
  readonly #seeded: number;
  readonly #now: () => number;
  #policy: ReviewPolicy;
  readonly #status: Uint8Array;
  readonly #platformStatus: Uint8Array;
  /** Reasons of seeded products an admin declined. */
  readonly #seededReasons = new Map<number, string>();
  readonly #entries = new Map<number, Entry>();
  readonly #bySku = new Map<string, number>();

  constructor(options: ProductBookOptions) {
    checkReviewPolicy(options.policy);
    const { seed, seeded } = options;
    this.#seed = seed;
    this.#seeded = seeded;
    this.#now = options.now;
    this.#policy = { ...options.policy };
    this.#status = new Uint8Array(seeded);
    this.#platformStatus = new Uint8Array(seeded);
    for (let i = 0; i < seeded; i++) {
      this.#status[i] = STATUSES.indexOf(seed.status(i));
      this.#platformStatus[i] = PLATFORM_STATUSES.indexOf(seed.platformStatus(i));
    }
  }

  // ---- every product's attributes ----------------------------------------------------------

  sku(position: number): string {
    return this.#entries.get(position)?.product.sku ?? seededSku(position);
  }

  name(position: number): string {
    return this.#entries.get(position)?.product.name ?? this.#seed.name(position);
  }

  brand(position: number): string {
    return this.#entries.get(position)?.product.brand ?? this.#seed.brand(position);
  }

  range(position: number): string | null {
    const e = this.#entries.get(position);
    return e ? e.product.range : this.#seed.range(position);
  }

  description(position: number): string {
    return this.#entries.get(position)?.product.description ?? this.#seed.description(position);
  }

  images(position: number): ProductImage[] {
    const e = this.#entries.get(position);
    if (e) return e.product.images.map((i) => ({ ...i }));
    return seededImages(this.#seed, position, seededSku(position));
  }

  sitePricing(position: number): SitePricing[] {
    const e = this.#entries.get(position);
    if (e) return e.product.sitePricing.map((s) => ({ ...s, site: { ...s.site } }));
    return seededSitePricing(this.#seed, position);
  }

  // ---- every product's statuses (a created product's review is applied when it is due) --------

  status(position: number): ProductStatus {
    return position < this.#seeded
      ? STATUSES[this.#status[position]!]!
      : this.outcome(position).status;
  }

  platformStatus(position: number): PlatformStatus {
    return position < this.#seeded
      ? PLATFORM_STATUSES[this.#platformStatus[position]!]!
      : this.outcome(position).platformStatus;
  }

  declinedReason(position: number): string | null {
    if (position >= this.#seeded) return this.outcome(position).declinedReason;
    if (this.platformStatus(position) !== 'declined') return null;
    return this.#seededReasons.get(position) ?? this.#seed.declinedReason(position);
  }

  /**
   * An admin decision on any product, created or seeded, whatever the stage of its review (a
   * decided product can be decided again); `declined` without a reason gets a default one.
   */
  decide(position: number, decision: ReviewDecision, reason: string | null): void {
    const why = decision === 'declined' ? (reason ?? DEFAULT_DECLINED_REASON) : null;
    if (position >= this.#seeded) {
      const e = this.#entry(position);
      e.outcome = outcomeOf(decision, why);
      e.decided = { decision, by: 'admin', at: this.#now() };
      e.dueAt = null;
      return;
    }
    const { status, platformStatus } = outcomeOf(decision, why);
    this.#status[position] = STATUSES.indexOf(status);
    this.#platformStatus[position] = PLATFORM_STATUSES.indexOf(platformStatus);
    if (why === null) this.#seededReasons.delete(position);
    else this.#seededReasons.set(position, why);
  }

  // ---- created products and their review -------------------------------------------------------

  get policy(): ReviewPolicy {
    return { ...this.#policy };
  }

  /** Changes the policy for products created (or released from a hold) from now on. */
  setPolicy(policy: Partial<ReviewPolicy>): ReviewPolicy {
    checkReviewPolicy(policy);
    this.#policy = { ...this.#policy, ...policy };
    return this.policy;
  }

  get(position: number): CreatedProduct | undefined {
    return this.#entries.get(position)?.product;
  }

  positionOf(sku: string): number | undefined {
    return this.#bySku.get(sku);
  }

  /** Records a new product as created (pending / inactive); its review starts with startReview. */
  add(position: number, product: CreatedProduct): void {
    this.#entries.set(position, {
      product,
      createdAt: this.#now(),
      dueAt: null,
      outcome: AWAITING_REVIEW,
      decided: null,
    });
    this.#bySku.set(product.sku, position);
  }

  /** Starts the review under the policy: due after the delay, or held under `manual`. */
  startReview(position: number): void {
    const e = this.#entry(position);
    e.dueAt = this.#policy.mode === 'manual' ? null : e.createdAt + this.#policy.delayMs;
  }

  /** A created product's statuses now, applying its automatic review when it is due. */
  outcome(position: number): ReviewOutcome {
    const e = this.#entry(position);
    if (e.decided === null && e.dueAt !== null) {
      const now = this.#now();
      if (now >= e.dueAt) {
        const { decision, reason } = reviewByRule(e.product.description);
        e.outcome = outcomeOf(decision, reason);
        e.decided = { decision, by: 'rule', at: now };
        e.dueAt = null;
      }
    }
    return e.outcome;
  }

  /**
   * Holds a waiting review (it then waits for an admin decision), or releases a held one (due at
   * creation + the policy's delay: at once when that has passed). A decided review → 409.
   */
  hold(position: number, held: boolean): void {
    this.outcome(position);
    const e = this.#entry(position);
    if (e.decided !== null) {
      throw conflict(
        'already_reviewed',
        'hold',
        `Product ${e.product.sku} is already reviewed (${e.outcome.platformStatus}).`,
      );
    }
    e.dueAt = held ? null : e.createdAt + this.#policy.delayMs;
  }

  review(position: number): ReviewRecord {
    const outcome = this.outcome(position);
    const e = this.#entry(position);
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      sku: e.product.sku,
      stage: e.decided !== null ? 'decided' : e.dueAt === null ? 'held' : 'waiting',
      status: outcome.status,
      platform_status: outcome.platformStatus,
      declined_reason: outcome.declinedReason,
      created_at: iso(e.createdAt),
      due_at: e.dueAt === null ? null : iso(e.dueAt),
      decision: e.decided?.decision ?? null,
      decided_by: e.decided?.by ?? null,
      decided_at: e.decided ? iso(e.decided.at) : null,
    };
  }

  #entry(position: number): Entry {
    const e = this.#entries.get(position);
    if (!e) throw new Error(`no created product at position ${position}`);
    return e;
  }
}
