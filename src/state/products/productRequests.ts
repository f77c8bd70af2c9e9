import type { BirthStock, ProductDraft } from '../../domain/catalogue.ts';
import type { StateDb } from '../db.ts';

/**
 * The products that products files asked for and the portal was not known to have (table
 * `product_requests`, migration 40), each created at most once: `queued` → `sending` (recorded
 * before the call) → `created`, `existing` or `failed`. A request found `sending` got no answer
 * that was recorded (a crash, a reset): it is resolved by asking the portal for its SKU.
 */
export type RequestState = 'queued' | 'sending' | 'created' | 'existing' | 'failed';

export interface ProductRequest {
  readonly id: number;
  readonly fileId: number;
  /** The original name of the file that asked for it. */
  readonly fileName: string;
  readonly line: number;
  readonly sku: string;
  readonly brand: string | null;
  readonly draft: ProductDraft;
  readonly birthStock: BirthStock;
  readonly shortDescription: boolean;
  readonly state: RequestState;
  readonly attempts: number;
  readonly error: string | null;
  readonly platformSku: string | null;
  readonly nextAttemptAt: number;
  /** When the last attempt was recorded as sent. */
  readonly sentAt: number | null;
  readonly queuedAt: number;
  readonly doneAt: number | null;
}

/** A products file's row to ask for (from its reading). */
export interface NewRequest {
  readonly line: number;
  readonly draft: ProductDraft;
  readonly stock: BirthStock;
  readonly shortDescription: boolean;
}

interface Row {
  id: number;
  file_id: number;
  file_name: string;
  line: number;
  sku: string;
  brand: string | null;
  draft: string;
  birth_stock: string;
  short_description: number;
  state: RequestState;
  attempts: number;
  error: string | null;
  platform_sku: string | null;
  next_attempt_at: number;
  sent_at: number | null;
  queued_at: number;
  done_at: number | null;
}

const toRequest = (r: Row): ProductRequest => ({
  id: r.id,
  fileId: r.file_id,
  fileName: r.file_name,
  line: r.line,
  sku: r.sku,
  brand: r.brand,
  draft: JSON.parse(r.draft) as ProductDraft,
  birthStock: JSON.parse(r.birth_stock) as BirthStock,
  shortDescription: r.short_description === 1,
  state: r.state,
  attempts: r.attempts,
  error: r.error,
  platformSku: r.platform_sku,
  nextAttemptAt: r.next_attempt_at,
  sentAt: r.sent_at,
  queuedAt: r.queued_at,
  doneAt: r.done_at,
});

/** How many requests of a file are in each state. */
export type RequestCounts = Readonly<Record<RequestState, number>>;

export class ProductRequests {
  readonly #db: StateDb;

  constructor(db: StateDb) {
    this.#db = db;
  }

  /** Records a file's products to create (inside the caller's transaction when there is one). */
  queue(rows: readonly NewRequest[], file: { id: number; name: string }, now: number): number {
    const insert = this.#db.prepare(
      `INSERT INTO product_requests (file_id, file_name, line, sku, brand, draft, birth_stock,
                                     short_description, state, next_attempt_at, queued_at)
       VALUES (@fileId, @fileName, @line, @sku, @brand, @draft, @stock, @short, 'queued', @now, @now)`,
    );
    this.#db.transaction(() => {
      for (const r of rows) {
        insert.run({
          fileId: file.id,
          fileName: file.name,
          line: r.line,
          sku: r.draft.sku,
          brand: r.draft.brand ?? null,
          draft: JSON.stringify(r.draft),
          stock: JSON.stringify(r.stock),
          short: r.shortDescription ? 1 : 0,
          now,
        });
      }
    })();
    return rows.length;
  }

  get(id: number): ProductRequest | undefined {
    const r = this.#db
      .prepare<[number], Row>('SELECT * FROM product_requests WHERE id = ?')
      .get(id);
    return r && toRequest(r);
  }

  /** Requests whose last attempt may have gone without its answer being recorded. */
  unanswered(): ProductRequest[] {
    return this.#db
      .prepare<[], Row>(`SELECT * FROM product_requests WHERE state = 'sending' ORDER BY id`)
      .all()
      .map(toRequest);
  }

  /** Queued requests due by `now`, oldest first. */
  due(now: number, limit: number): ProductRequest[] {
    return this.#db
      .prepare<[number, number], Row>(
        `SELECT * FROM product_requests WHERE state = 'queued' AND next_attempt_at <= ?
          ORDER BY id LIMIT ?`,
      )
      .all(now, limit)
      .map(toRequest);
  }

  /** The open requests: how many, and when the next queued one is due (null: none queued). */
  open(): { readonly queued: number; readonly sending: number; readonly nextAt: number | null } {
    const r = this.#db
      .prepare<[], { queued: number; sending: number; next: number | null }>(
        `SELECT COALESCE(SUM(state = 'queued'), 0) AS queued,
                COALESCE(SUM(state = 'sending'), 0) AS sending,
                MIN(CASE WHEN state = 'queued' THEN next_attempt_at END) AS next
           FROM product_requests WHERE state IN ('queued', 'sending')`,
      )
      .get();
    return { queued: r?.queued ?? 0, sending: r?.sending ?? 0, nextAt: r?.next ?? null };
  }

  /** The intent, committed before the call: the attempt may go from here on. */
  markSending(id: number, now: number): void {
    this.#set(`state = 'sending', attempts = attempts + 1, sent_at = @now, error = NULL`, id, {
      now,
    });
  }

  /** Back in line: the call did not go (a budget or login wait), or the portal lacks the SKU. */
  requeue(id: number, at: number, error: string | null = null): void {
    this.#set(`state = 'queued', next_attempt_at = @at, error = @error`, id, { at, error });
  }

  /** The attempt did not reach the portal: not counted. */
  unsend(id: number, at: number): void {
    this.#set(
      `state = 'queued', attempts = MAX(attempts - 1, 0), sent_at = NULL, next_attempt_at = @at`,
      id,
      { at },
    );
  }

  settle(
    id: number,
    outcome: {
      state: 'created' | 'existing' | 'failed';
      platformSku?: string | null;
      error?: string;
    },
    now: number,
  ): void {
    this.#set(`state = @state, platform_sku = @platformSku, error = @error, done_at = @now`, id, {
      state: outcome.state,
      platformSku: outcome.platformSku ?? null,
      error: outcome.error ?? null,
      now,
    });
  }

  /** Whether any products file ever asked for a product. */
  any(): boolean {
    return this.#db.prepare('SELECT 1 FROM product_requests LIMIT 1').get() !== undefined;
  }

  /** The latest request for a SKU (what `explain` says a key waits for); undefined when none. */
  ofSku(sku: string): ProductRequest | undefined {
    const r = this.#db
      .prepare<[string], Row>(
        'SELECT * FROM product_requests WHERE sku = ? ORDER BY id DESC LIMIT 1',
      )
      .get(sku);
    return r && toRequest(r);
  }

  /** A file's requests, in line order. */
  ofFile(fileId: number): ProductRequest[] {
    return this.#db
      .prepare<[number], Row>('SELECT * FROM product_requests WHERE file_id = ? ORDER BY line, id')
      .all(fileId)
      .map(toRequest);
  }

  #set(assignments: string, id: number, values: Record<string, unknown>): void {
    this.#db
      .prepare(`UPDATE product_requests SET ${assignments} WHERE id = @id`)
      .run({ ...values, id });
  }
}

/** How many of `requests` are in each state. */
export function countStates(requests: readonly Pick<ProductRequest, 'state'>[]): RequestCounts {
  const counts = { queued: 0, sending: 0, created: 0, existing: 0, failed: 0 };
  for (const r of requests) counts[r.state]++;
  return counts;
}
