import type { Logger } from '../log/logger.ts';
import type { BatchSizes, BulkKind } from './batchSizes.ts';
import { errorDetails } from './body.ts';
import type { Caller } from './caller.ts';
import { type CallOptions, httpError } from './request.ts';
import { type StockError, type StockUpdated, stockUpdateResultSchema } from './schemas.ts';

export type { BulkKind };

export interface FactoryStockItem {
  readonly sku: string;
  /** The new absolute total. */
  readonly stock_quantity: number;
}

export interface DcStockItem extends FactoryStockItem {
  readonly distribution_centre_code: string;
}

export interface BulkResult {
  /** As the portal said, over every batch. */
  readonly updated: StockUpdated[];
  /**
   * As the portal said, plus one entry (with `status`) for each item whose one-item request was
   * refused as a whole.
   */
  readonly errors: Array<StockError & { readonly status?: number }>;
  /** Requests sent (batches, including the halves of split ones). */
  readonly requests: number;
}

/** Statuses with which a portal may refuse a request body as too large. */
const TOO_LARGE = new Set([400, 413, 422]);

export interface BulkDeps {
  readonly caller: Caller;
  readonly sizes: BatchSizes;
  readonly logger: Logger;
}

/**
 * Sends `items` in batches of maxBatchSize(kind). A multi-item batch refused as too large is
 * split in halves and resent (stock quantities are absolute, so resending is safe), and the
 * size that went through is remembered.
 */
export async function bulkUpdate<I extends FactoryStockItem>(
  deps: BulkDeps,
  kind: BulkKind,
  items: readonly I[],
  options: CallOptions = {},
): Promise<BulkResult> {
  const path =
    kind === 'factory' ? 'factory-stocks/bulk-update' : 'distribution-centre-stocks/bulk-update';
  const where = `POST /${path}`;
  const updated: StockUpdated[] = [];
  const errors: Array<StockError & { status?: number }> = [];
  let requests = 0;

  const send = async (batch: readonly I[]): Promise<void> => {
    requests++;
    const response = await deps.caller.send(
      { method: 'POST', path, json: batch, resend: 'always' },
      options,
    );
    if (response.status >= 200 && response.status < 300) {
      deps.sizes.accepted(kind, batch.length);
      // The spec does not show every bulk answer (DC stock): any 2xx is success, and an answer
      // that cannot be read leaves its items `missing`, never silently updated.
      const body = stockUpdateResultSchema.safeParse(response.body);
      if (body.success) {
        updated.push(...body.data.updated);
        errors.push(...body.data.errors);
      } else {
        deps.logger.warn(
          { event: 'api.bulk_unreadable', kind, size: batch.length, status: response.status },
          'bulk update answered without a readable updated/errors body; items count as missing',
        );
      }
      return;
    }
    const details = errorDetails(response.raw);
    if (TOO_LARGE.has(response.status) && batch.length > 1 && !isItemField(details.field)) {
      deps.sizes.rejected(kind, batch.length);
      const into = Math.min(deps.sizes.max(kind), Math.ceil(batch.length / 2));
      deps.logger.info(
        { event: 'api.bulk_split', kind, size: batch.length, status: response.status, into },
        'bulk update refused as too large; sending it in smaller batches',
      );
      await sendAll(batch);
      return;
    }
    if (
      response.status >= 400 &&
      response.status < 500 &&
      batch.length === 1 &&
      response.status !== 404
    ) {
      const item = batch[0]!;
      errors.push({
        ...(kind === 'dc'
          ? { distribution_centre_code: (item as unknown as DcStockItem).distribution_centre_code }
          : {}),
        sku: item.sku,
        platform_sku: null,
        stock_quantity: item.stock_quantity,
        error: details.apiMessage ?? details.excerpt ?? `HTTP ${response.status}`,
        status: response.status,
      });
      return;
    }
    throw httpError(where, response.raw, false);
  };

  /**
   * Sends items in batches of the size learnt so far, re-read before every batch: it shrinks when
   * the portal refuses one (below the refused size, so a refused batch is never resent whole)
   * and grows while the search between accepted and refused goes on.
   */
  async function sendAll(batch: readonly I[]): Promise<void> {
    for (let i = 0; i < batch.length; ) {
      const part = batch.slice(i, i + deps.sizes.max(kind));
      await send(part);
      i += part.length;
    }
  }

  await sendAll(items);
  return { updated, errors, requests };
}

/** A field that names one item (`3.sku`, `items[3]`, `sku`) means a bad item, not a big body. */
function isItemField(field: string | undefined): boolean {
  if (field === undefined) return false;
  return /\d|^(sku|stock_quantity|distribution_centre_code)$/.test(field);
}
