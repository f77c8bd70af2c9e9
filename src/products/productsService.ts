import type { ProductsPortal } from '../api/index.ts';
import type { AppearedProduct, CatalogueReferences } from '../domain/catalogue.ts';
import type { Clock } from '../domain/clock.ts';
import type { StockRuleSet } from '../domain/stockRules.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { ProductDecisions } from '../state/products/productDecisions.ts';
import { ProductRequests } from '../state/products/productRequests.ts';
import { catalogueDue } from './catalogueRead.ts';
import { emptyRun, runCreations } from './createRun.ts';
import { clearDeclinedTemps } from './declinedOutbox.ts';
import { type FollowHooks, type FollowOutcome, followProducts } from './follow.ts';
import { referenceSource } from './referenceData.ts';
import { reviewDueAt } from './review.ts';

/** How long one run of creations goes on before it ends (and the stock that waited is pushed). */
export const CREATION_SLICE_MS = 3000;

/** What the products flow needs from around it. */
export interface ProductsEdges {
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  /** Aborts on shutdown: creations stop between calls. */
  readonly signal: AbortSignal;
  /** The portal, in the 'products' lane of the budget. */
  readonly portal: ProductsPortal;
  /** The stock rules in force (the stock a product is born with is offered as they say). */
  readonly stockRules: () => StockRuleSet;
  /**
   * The stock flow's operation for products that now exist: their answered stock is known, the
   * stock that waited for them is due. More than 0: a push is owed.
   */
  readonly productsAppeared: (products: readonly AppearedProduct[]) => number;
  /** Ingestion's operation: the reports of these products files (by ledger id) brought up to date. */
  readonly onFilesAnswered: (fileIds: readonly number[]) => Promise<void>;
  /** The data dir's `outbox/`: the products the platform declined go there for the ERP. */
  readonly outboxDir: string;
  /** CATALOGUE_REVIEW_INTERVAL_MS: how soon a decision of the platform's review is noticed. */
  readonly reviewIntervalMs: number;
  /** Test seam: right after a creation was answered, before its answer is recorded. */
  readonly hooks?: { readonly afterCall?: (sku: string) => void };
  /** How long one run goes on (CREATION_SLICE_MS unless a test says). */
  readonly sliceMs?: number;
}

/** What one run of creations did, and what it asks of the queues. */
export interface CreationOutcome {
  readonly created: number;
  readonly existing: number;
  readonly failed: number;
  readonly brandsCreated: number;
  /** Stock keys that waited for these products and are owed a push now. */
  readonly owed: number;
  /** Requests still due: another run is owed. */
  readonly more: boolean;
}

/** Work owed now, as state.db says (the periodic recovery asks for it again). */
export interface ProductsWorkDue {
  readonly queued: number;
  /** Attempts that got no answer recorded (resolved first by the next run). */
  readonly unanswered: number;
  /** The platform's review is to be looked at now. */
  readonly review: boolean;
  /** A page of the catalogue pass is to be read now. */
  readonly catalogue: boolean;
  /** Declined-products files committed and not yet in `outbox/`. */
  readonly unwrittenFiles: number;
  /** A run has something to do now. */
  readonly due: boolean;
}

/** New products: from the products files' requests to the portal, each created once. */
export interface Products {
  /**
   * Creates what is due, for at most a few seconds. Nothing while
   * writes are paused (`pause`). Throws what the job must wait for or retry.
   */
  createDue(reason: string): Promise<CreationOutcome>;
  due(): ProductsWorkDue;
  /**
   * The follow-up, after creations: the platform's review looked at when due, the declined
   * products handed to the ERP, the catalogue pass read page by page (followProducts).
   */
  follow(hooks: Pick<FollowHooks, 'pushDue' | 'pushOwed'>): Promise<FollowOutcome>;
  /**
   * The portal's sites, tax rates and distribution centres, as kept in state.db: read again when
   * older than a day (a products file's rows are checked against them).
   */
  references(): Promise<CatalogueReferences>;
}

export function createProducts(edges: ProductsEdges): Products {
  const { db, log, clock } = edges;
  const kv = new KeyValueStore(db);
  const paused = () => kv.get('sync.paused') !== undefined;
  const requests = new ProductRequests(db);
  const references = referenceSource(edges);
  // A crash may have left a declined-products file half written: cleared before the first write.
  let tempsCleared: Promise<unknown> | undefined;
  /** Creations due now: requests whose time has come, or attempts to resolve (none while paused). */
  const creationsDue = (now: number) => {
    const open = requests.open();
    return !paused() && (open.sending > 0 || (open.nextAt !== null && open.nextAt <= now));
  };

  return {
    async createDue(reason) {
      const started = clock.now();
      const run = emptyRun();
      await runCreations(
        {
          db,
          log,
          clock,
          signal: edges.signal,
          portal: edges.portal,
          stockRules: edges.stockRules,
          appeared: edges.productsAppeared,
          paused,
          ...(edges.hooks === undefined ? {} : { hooks: edges.hooks }),
        },
        edges.sliceMs ?? CREATION_SLICE_MS,
        run,
      ).catch(async (err: unknown) => {
        // What was answered before the failure is recorded; its files' reports say so.
        await edges.onFilesAnswered([...run.files]);
        throw err;
      });
      if (run.files.size > 0) await edges.onFilesAnswered([...run.files]);
      const { files: _files, ...outcome } = run;
      if (run.created + run.existing + run.failed > 0) {
        log.info(
          { event: 'products.run', reason, ...outcome, ms: clock.now() - started },
          `products: ${run.created} created, ${run.existing} existing, ${run.failed} failed`,
        );
      }
      return outcome;
    },

    due() {
      const now = clock.now();
      const open = requests.open();
      const creations = creationsDue(now);
      const reviewAt = reviewDueAt(db, edges.reviewIntervalMs);
      const review = reviewAt !== null && reviewAt <= now;
      const catalogue = catalogueDue(db, now).due;
      const unwrittenFiles = new ProductDecisions(db).unwrittenCount();
      return {
        queued: open.queued,
        unanswered: open.sending,
        review,
        catalogue,
        unwrittenFiles,
        due: creations || review || catalogue || unwrittenFiles > 0,
      };
    },

    async follow(hooks) {
      tempsCleared ??= clearDeclinedTemps(edges.outboxDir);
      await tempsCleared;
      return followProducts(
        {
          db,
          log,
          clock,
          signal: edges.signal,
          portal: edges.portal,
          appeared: edges.productsAppeared,
          intervalMs: edges.reviewIntervalMs,
          outboxDir: edges.outboxDir,
        },
        {
          pushDue: hooks.pushDue,
          pushOwed: hooks.pushOwed,
          creationsDue: () => creationsDue(clock.now()),
        },
      );
    },

    references,
  };
}
