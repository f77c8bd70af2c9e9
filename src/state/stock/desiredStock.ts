import type { StockKind } from '../../domain/stock.ts';
import type { OfferSummary } from '../../domain/stockRules.ts';
import type { StateDb } from '../db.ts';

/** One desired position of a kind; `dc` is '' for factory stock. */
export interface DesiredInput {
  readonly dc: string;
  readonly sku: string;
  readonly quantity: number;
}

/** What applying a staged set to desired stock did (stagedApply.ts sums it over the chunks). */
export interface ApplyResult {
  /** Keys of the set, superseded ones included. */
  readonly rows: number;
  /** Keys whose desired quantity differs from the known remote one (or no remote is known). */
  readonly differing: number;
  /** Keys newly made pending (the rest of `differing` was already pending). */
  readonly newlyPending: number;
  /** Stored failures removed because a newer, different quantity replaces them. */
  readonly failuresCleared: number;
  /** Rows not applied because a newer source already set their key. */
  readonly superseded: number;
  /** What the stock rules made of the applied rows' ERP quantities. */
  readonly offers: OfferSummary;
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

/** How many keys of a kind the ERP has asked for and are offered (excluded keys aside). */
export function countDesired(db: StateDb, kind: StockKind): number {
  return (
    db
      .prepare<[StockKind], { n: number }>(
        'SELECT COUNT(*) AS n FROM desired_stock WHERE kind = ? AND excluded = 0',
      )
      .get(kind)?.n ?? 0
  );
}

/**
 * What desired stock offers for one SKU (excluded keys aside): its factory quantity, and its
 * quantity at each of `centres` (looked up by key: the table is keyed by kind, centre, SKU).
 */
export function offeredOfSku(
  db: StateDb,
  sku: string,
  centres: Iterable<string>,
): { factory: number | undefined; dcs: Map<string, number> } {
  const get = db
    .prepare<[StockKind, string, string], number>(
      'SELECT quantity FROM desired_stock WHERE kind = ? AND dc = ? AND sku = ? AND excluded = 0',
    )
    .pluck(true);
  const dcs = new Map<string, number>();
  for (const dc of centres) {
    const q = get.get('dc', dc, sku);
    if (q !== undefined) dcs.set(dc, q);
  }
  return { factory: get.get('factory', '', sku), dcs };
}
