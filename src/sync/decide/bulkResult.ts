import type { BulkAnswer } from '../../api/index.ts';
import { isNotFoundError } from '../../domain/retrySchedule.ts';
import type { StockKind, StockRow } from '../../domain/stock.ts';

export interface ItemFailure {
  readonly row: StockRow;
  readonly error: string;
  readonly notFound: boolean;
}

export interface BulkOutcome {
  readonly updated: Array<
    StockRow & {
      readonly platformSku: string | null;
      /** The quantity the portal echoed for it, when it did; `quantity` is what was sent. */
      readonly echoed: number | null;
    }
  >;
  readonly failed: ItemFailure[];
}

export const MISSING_FROM_ANSWER = 'not in the portal answer (neither updated nor errors)';

/**
 * Matches an answer to the rows sent: an item is updated only when the portal says so, failed when
 * it is in `errors`, and failed too when it is in neither (the spec says together they cover every
 * item, so silence is not success).
 */
export function classifyBulkAnswer(
  kind: StockKind,
  sent: readonly StockRow[],
  answer: BulkAnswer,
): BulkOutcome {
  const id = (sku: string, dc: string | null | undefined) =>
    kind === 'factory' ? sku : `${dc ?? ''}\u0000${sku}`;
  // A DC entry without its centre's code stands for the one row of that SKU, if only one was sent.
  const centreBySku = new Map<string, string | null>();
  for (const row of sent) centreBySku.set(row.sku, centreBySku.has(row.sku) ? null : row.dc);
  const centreOf = (sku: string, dc: string | null | undefined) =>
    kind === 'factory' || dc ? dc : (centreBySku.get(sku) ?? dc);
  const updated = new Map<string, { platformSku: string | null; echoed: number | null }>();
  for (const u of answer.updated) {
    updated.set(id(u.sku, centreOf(u.sku, u.distribution_centre_code)), {
      platformSku: u.platform_sku ?? null,
      echoed: typeof u.stock_quantity === 'number' ? u.stock_quantity : null,
    });
  }
  const errors = new Map<string, string>();
  for (const e of answer.errors) {
    if (typeof e.sku !== 'string') continue; // cannot be matched: its item counts as missing
    errors.set(
      id(e.sku, centreOf(e.sku, e.distribution_centre_code)),
      e.error || 'rejected without a message',
    );
  }

  const outcome: BulkOutcome = { updated: [], failed: [] };
  for (const row of sent) {
    const key = id(row.sku, row.dc);
    const error = errors.get(key);
    const landed = updated.get(key);
    if (error !== undefined) outcome.failed.push({ row, error, notFound: isNotFoundError(error) });
    else if (landed !== undefined) outcome.updated.push({ ...row, ...landed });
    else outcome.failed.push({ row, error: MISSING_FROM_ANSWER, notFound: false });
  }
  return outcome;
}
