import type { StockKind } from '../../domain/stock.ts';
import type { StateDb } from '../db.ts';
import { KeyValueStore } from '../kv.ts';
import { kvKey } from '../kvKeys.ts';

/**
 * Full exports (a profile's `absent: "zero"`, `SNAPSHOT_ABSENT=zero`): every key of the kind that
 * the portal holds above 0 — or that an earlier file or snapshot asked to be above 0, a push of
 * it possibly still owed — and that the export does not name is set to 0. These are the
 * candidates: one indexed scan per kind, streamed (works on a read-only connection too).
 */
export function* keysHeldAboveZero(
  db: StateDb,
  kind: StockKind,
): Generator<{ readonly dc: string; readonly sku: string }> {
  yield* db
    .prepare<[{ kind: StockKind }], { dc: string; sku: string }>(
      `SELECT dc, sku FROM remote_stock WHERE kind = @kind AND quantity > 0
       UNION SELECT dc, sku FROM desired_stock WHERE kind = @kind AND quantity > 0`,
    )
    .iterate({ kind });
}

/**
 * Whether the portal's whole stock of a kind has been read once (remote_stock then holds every
 * key it has): without that, a full export cannot know which keys to zero.
 */
export function portalStockRead(db: StateDb, kind: StockKind): boolean {
  return new KeyValueStore(db).get(kvKey.readAt(kind)) !== undefined;
}

/**
 * The before-apply step of a full export, on the staged set (`staged.rows`, see
 * inventory/apply/applyStaged.ts): adds a row of quantity 0, line 0, for every key of `kind` held above
 * 0 that the set does not name — for DC stock only at the centres the set names. One statement
 * (UNION and EXCEPT over indexed keys); returns how many rows it added.
 */
export function stageAbsentZeros(db: StateDb, kind: StockKind): number {
  return db
    .prepare<[{ kind: StockKind }]>(
      `INSERT INTO staged.rows (kind, dc, sku, quantity, line)
       SELECT @kind, dc, sku, 0, 0 FROM (
         SELECT dc, sku FROM main.remote_stock WHERE kind = @kind AND quantity > 0
         UNION SELECT dc, sku FROM main.desired_stock WHERE kind = @kind AND quantity > 0
         EXCEPT SELECT dc, sku FROM staged.rows WHERE kind = @kind)
        WHERE @kind = 'factory' OR dc IN (SELECT dc FROM staged.rows WHERE kind = @kind)`,
    )
    .run({ kind }).changes;
}
