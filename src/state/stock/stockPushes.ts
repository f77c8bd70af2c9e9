import type { StockKey, StockKind, StockRow } from '../../domain/stock.ts';
import type { StateDb } from '../db.ts';

/** How the portal answered the last push of a key. */
export type PushOutcome = 'updated' | 'rejected';

/** The last push of one key (`explain`). */
export interface LastPush {
  readonly at: number;
  /** The quantity sent. */
  readonly quantity: number;
  readonly outcome: PushOutcome;
  /** After an update: the quantity the portal says it holds when it differs from the one sent. */
  readonly held: number | null;
  /** After a rejection: the portal's message. */
  readonly error: string | null;
}

/** The last push of each stock key (stock_pushes, migration 13): one row per key pushed. */
export class StockPushes {
  readonly #upsert;
  readonly #get;

  constructor(db: StateDb) {
    this.#upsert = db.prepare<
      [StockKind, string, string, number, number, PushOutcome, number | null, string | null]
    >(
      `INSERT INTO stock_pushes (kind, dc, sku, at, quantity, outcome, held, error)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, dc, sku) DO UPDATE SET at = excluded.at, quantity = excluded.quantity,
         outcome = excluded.outcome, held = excluded.held, error = excluded.error`,
    );
    this.#get = db.prepare<
      [StockKind, string, string],
      {
        at: number;
        quantity: number;
        outcome: PushOutcome;
        held: number | null;
        error: string | null;
      }
    >(
      'SELECT at, quantity, outcome, held, error FROM stock_pushes WHERE kind = ? AND dc = ? AND sku = ?',
    );
  }

  /** The portal took `row` (and says it holds `held`, which may differ). */
  updated(row: StockRow, held: number, now: number): void {
    this.#upsert.run(
      row.kind,
      row.dc,
      row.sku,
      now,
      row.quantity,
      'updated',
      held === row.quantity ? null : held,
      null,
    );
  }

  /** The portal refused `row`. */
  rejected(row: StockRow, error: string, now: number): void {
    this.#upsert.run(row.kind, row.dc, row.sku, now, row.quantity, 'rejected', null, error);
  }

  last(key: StockKey): LastPush | undefined {
    return this.#get.get(key.kind, key.dc, key.sku);
  }
}
