import type { StockKind, StockRow } from '../../domain/stock.ts';

/**
 * How many of `rows` (in key order) make the next batch: at most `size`, and for DC stock never
 * the same SKU twice. The portal's documented error entry names the SKU but not the centre, so an
 * error can be matched to its row only when its SKU is alone in the request. Rows come ordered by
 * centre, so a batch is cut where a SKU would repeat, which is at the latest where the next
 * centre's SKUs start over (one batch per centre at worst). Pure.
 */
export function nextBatchLength(kind: StockKind, rows: readonly StockRow[], size: number): number {
  const limit = Math.min(size, rows.length);
  if (kind === 'factory') return limit;
  const skus = new Set<string>();
  for (let i = 0; i < limit; i++) {
    const sku = rows[i]!.sku;
    if (skus.has(sku)) return i;
    skus.add(sku);
  }
  return limit;
}
