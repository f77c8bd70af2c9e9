import type { StockKind } from '../domain/stock.ts';
import type { StateDb } from './db.ts';
import { KeyValueStore } from './kv.ts';
import { kvKey } from './kvKeys.ts';

/**
 * Full exports (a profile's `absent: "zero"`, `SNAPSHOT_ABSENT=zero`): every key of the kind that
 * the portal holds above 0 — or that an earlier file or snapshot asked to be above 0, a push of
 * it possibly still owed — and that the export does not name is set to 0. For distribution-centre
 * stock only at the centres the export names: a file of one warehouse says nothing of the others.
 *
 * The candidates are one set-based statement (UNION and EXCEPT over indexed keys), never a lookup
 * per row.
 */

/** Keys of a kind the portal holds (or the ERP last asked for) above 0. */
const HELD_ABOVE_ZERO = `SELECT dc, sku FROM remote_stock WHERE kind = @kind AND quantity > 0
  UNION SELECT dc, sku FROM desired_stock WHERE kind = @kind AND quantity > 0`;

/**
 * Adds a row of quantity 0 to `table` (the staged rows of one source: columns dc, sku, quantity)
 * for every key held above 0 that it does not name; returns how many. Call inside the apply's
 * transaction, after the source's own rows are staged and before anything reads them.
 */
export function stageAbsentZeros(db: StateDb, table: 'temp.ingest_rows', kind: StockKind): number {
  return db
    .prepare<[{ kind: StockKind }]>(
      `INSERT INTO ${table} (dc, sku, quantity)
       SELECT dc, sku, 0 FROM (${HELD_ABOVE_ZERO} EXCEPT SELECT dc, sku FROM ${table})
        WHERE @kind = 'factory' OR dc IN (SELECT dc FROM ${table})
        ORDER BY dc, sku`,
    )
    .run({ kind }).changes;
}

/**
 * Read-only (for dry runs): how many keys held above 0 a source naming `keys` would set to 0.
 * `keys` holds `dc + "\u0000" + sku` for every key the source names; `dcs` the centres it names.
 */
export function countAbsentKeys(
  db: StateDb,
  kind: StockKind,
  keys: ReadonlySet<string>,
  dcs: ReadonlySet<string>,
): number {
  let n = 0;
  const held = db
    .prepare<[{ kind: StockKind }], { dc: string; sku: string }>(HELD_ABOVE_ZERO)
    .iterate({ kind });
  for (const { dc, sku } of held) {
    if (kind === 'dc' && !dcs.has(dc)) continue;
    if (!keys.has(`${dc}\u0000${sku}`)) n++;
  }
  return n;
}

/**
 * Whether the portal's whole stock of a kind has been read once (remote_stock then holds every
 * key it has): without that, a full export cannot know which keys to zero.
 */
export function portalStockRead(db: StateDb, kind: StockKind): boolean {
  return new KeyValueStore(db).get(kvKey.readAt(kind)) !== undefined;
}
