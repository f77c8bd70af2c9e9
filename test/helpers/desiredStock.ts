import type { StockKind } from '../../src/domain/stock.ts';
import { applyRows } from '../../src/inventory/apply/applyStaged.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { StateDb } from '../../src/state/db.ts';
import { recordStagedApply } from '../../src/state/staging/stagedApplyTable.ts';
import type { ApplyResult, DesiredInput } from '../../src/state/stock/desiredStock.ts';

const silent = createLogger({ level: 'silent', pretty: false });

/**
 * Sets desired stock of one kind as a stock file of these rows would (for tests and benchmarks
 * that need desired stock in place): through the staged apply, the one way stock is applied — a
 * scratch file under `<dataDir>/staging/`, the commit point, the chunked merge with the
 * connection's stock rules, pending keys and failures settled by the sync engine's rule. `source`
 * is what desired_stock.source says; rows of keys a newer source (`sourceAt`) set are superseded;
 * a key given twice keeps its last row. Resolves to what the apply counted.
 */
export async function seedDesiredStock(
  db: StateDb,
  dataDir: string,
  kind: StockKind,
  rows: Iterable<DesiredInput>,
  source: string,
  now: number,
  sourceAt: number = now,
): Promise<ApplyResult> {
  function* withKind() {
    for (const r of rows) yield { kind, dc: r.dc, sku: r.sku, quantity: r.quantity };
  }
  const out = await applyRows(
    { db, log: silent, dataDir },
    withKind(),
    { type: 'file', name: source, kind },
    (stagedFile) => ({
      applyId: recordStagedApply(db, {
        stagedFile,
        source,
        fileId: null,
        sourceAt,
        appliedAt: now,
      }),
    }),
  );
  if (out.status !== 'applied') throw new Error(`desired stock not applied: ${out.status}`);
  return out.totals;
}
