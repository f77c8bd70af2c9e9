import type { StockKind } from '../domain/stock.ts';
import type { StateDb } from './db.ts';

/** One desired position as ingestion hands it over; `dc` is '' for factory stock. */
export interface DesiredInput {
  readonly dc: string;
  readonly sku: string;
  readonly quantity: number;
}

export interface ApplyResult {
  /** Rows written to desired_stock. */
  readonly rows: number;
  /** Keys whose desired quantity differs from the known remote one (or no remote is known). */
  readonly differing: number;
  /** Keys newly put in stock_dirty (the rest of `differing` was already there). */
  readonly dirtied: number;
  /** Stored failures removed because a newer, different quantity replaces them. */
  readonly failuresCleared: number;
}

function build(db: StateDb) {
  return {
    upsert: db.prepare<[StockKind, string, string, number, string, number]>(
      `INSERT INTO desired_stock (kind, dc, sku, quantity, source, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, dc, sku) DO UPDATE
         SET quantity = excluded.quantity, source = excluded.source, updated_at = excluded.updated_at`,
    ),
    // One lookup for both facts; raw() returns [remote, failure] without building an object.
    facts: db
      .prepare<
        [StockKind, string, string, StockKind, string, string],
        [number | null, number | null]
      >(
        `SELECT (SELECT quantity FROM remote_stock WHERE kind = ? AND dc = ? AND sku = ?),
                (SELECT quantity FROM stock_failures WHERE kind = ? AND dc = ? AND sku = ?)`,
      )
      .raw(true),
    markDirty: db.prepare<[StockKind, string, string, number]>(
      'INSERT INTO stock_dirty (kind, dc, sku, since) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    clearFailure: db.prepare<[StockKind, string, string]>(
      'DELETE FROM stock_failures WHERE kind = ? AND dc = ? AND sku = ?',
    ),
  };
}

type Statements = ReturnType<typeof build>;

const cache = new WeakMap<StateDb, Statements>();

function statements(db: StateDb): Statements {
  let s = cache.get(db);
  if (s === undefined) {
    s = build(db);
    cache.set(db, s);
  }
  return s;
}

/**
 * Writes desired quantities for one source (a file, a snapshot) in one transaction (a savepoint
 * when the caller already holds one), following the sync engine's rule for each key:
 * - desired_stock is upserted;
 * - when the quantity differs from remote_stock's (or no remote row exists) the key goes into
 *   stock_dirty (kept if already there);
 * - a stored failure for the key with a different quantity is deleted: the newer value replaces
 *   the one that failed (a failure with the same quantity stays, with its back-off).
 */
export function applyDesiredStock(
  db: StateDb,
  kind: StockKind,
  rows: Iterable<DesiredInput>,
  source: string,
  now: number,
): ApplyResult {
  const s = statements(db);
  const run = db.transaction(() => {
    let count = 0;
    let differing = 0;
    let dirtied = 0;
    let failuresCleared = 0;
    for (const r of rows) {
      s.upsert.run(kind, r.dc, r.sku, r.quantity, source, now);
      const facts = s.facts.get(kind, r.dc, r.sku, kind, r.dc, r.sku) as unknown as [
        number | null,
        number | null,
      ];
      const remote = facts[0];
      const failed = facts[1];
      if (failed !== null && failed !== r.quantity) {
        s.clearFailure.run(kind, r.dc, r.sku);
        failuresCleared++;
      }
      if (remote !== r.quantity) {
        differing++;
        dirtied += s.markDirty.run(kind, r.dc, r.sku, now).changes;
      }
      count++;
    }
    return { rows: count, differing, dirtied, failuresCleared };
  });
  return run();
}

export interface RemoteComparison {
  /** The portal is known to hold another quantity. */
  readonly changed: number;
  /** The portal is known to hold this quantity already. */
  readonly unchanged: number;
  /** Nothing is known of this key on the portal (never read, or not a product there). */
  readonly unknown: number;
}

/**
 * Read-only: compares desired rows with the known remote stock, for dry runs. Works on a
 * read-only connection.
 */
export function compareWithRemote(
  db: StateDb,
  kind: StockKind,
  rows: Iterable<DesiredInput>,
): RemoteComparison {
  const get = db
    .prepare('SELECT quantity FROM remote_stock WHERE kind = ? AND dc = ? AND sku = ?')
    .pluck(true);
  let changed = 0;
  let unchanged = 0;
  let unknown = 0;
  for (const r of rows) {
    const remote = get.get(kind, r.dc, r.sku) as number | undefined;
    if (remote === undefined) unknown++;
    else if (remote === r.quantity) unchanged++;
    else changed++;
  }
  return { changed, unchanged, unknown };
}
