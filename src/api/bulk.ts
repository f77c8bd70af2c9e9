import type { Logger } from '../log/logger.ts';
import type { BatchSizes, BulkKind } from './batchSizes.ts';
import { type ErrorBodyDetails, errorDetails } from './body.ts';
import type { Caller } from './caller.ts';
import { BulkIncompleteError, refusesContent } from './portalErrors.ts';
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

export interface BulkAnswer {
  /** As the portal said, over every batch (a DC entry without its centre's code gets it back when its SKU was alone in its request). */
  readonly updated: StockUpdated[];
  /**
   * As the portal said, plus one entry (with `status`) for each item of a request the portal
   * refused as a whole (for that item, or for the batch without naming an item).
   */
  readonly errors: Array<StockError & { readonly status?: number }>;
}

export interface BulkResult extends BulkAnswer {
  /** Requests sent (batches, including the parts of split ones and resends). */
  readonly requests: number;
}

export interface BulkDeps {
  readonly caller: Caller;
  readonly sizes: BatchSizes;
  readonly logger: Logger;
  /** Epoch ms now (the client's clock). */
  readonly now: () => number;
}

/**
 * Sends `items` in batches of maxBatchSize(kind), each answered item by item:
 *
 * - a batch the portal refuses as too large (413, or 400/422 saying so) is split and resent
 *   (quantities are absolute, so resending is safe), and the size that went through is learnt;
 * - a refusal that names one item (`error.field` `3.stock_quantity`) fails that item with the
 *   portal's message, and the rest of the batch is sent again;
 * - any other refusal of the request (400, 409, 422 … naming no item) fails the items of that
 *   batch with the portal's message; the next batches still go;
 * - anything that may pass (5xx, budget, 401 …) throws: before any answer the error itself, after
 *   some, a BulkIncompleteError with the answers so far and the items not sent.
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
  const answered = new Set<I>();
  let requests = 0;

  const refuse = (item: I, status: number, details: ErrorBodyDetails) => {
    errors.push({
      ...(kind === 'dc'
        ? { distribution_centre_code: (item as unknown as DcStockItem).distribution_centre_code }
        : {}),
      sku: item.sku,
      platform_sku: null,
      stock_quantity: item.stock_quantity,
      error: details.apiMessage ?? details.excerpt ?? `HTTP ${status}`,
      status,
    });
    answered.add(item);
  };

  /**
   * Sends one batch. 'too large': refused as such (the size is learnt, nothing answered);
   * a number: the index of the one item the refusal named (refused; the others to send again);
   * 'done': every item answered.
   */
  const send = async (batch: readonly I[]): Promise<'done' | 'too large' | number> => {
    requests++;
    const response = await deps.caller.send(
      { method: 'POST', path, json: batch, resend: 'always' },
      options,
    );
    const { status } = response;
    if (status >= 200 && status < 300) {
      deps.sizes.accepted(kind, batch.length);
      // The spec does not show every bulk answer (DC stock): any 2xx is success, and an answer
      // that cannot be read leaves its items unanswered (the caller counts them as failed),
      // never silently updated.
      const body = stockUpdateResultSchema.safeParse(response.body);
      if (body.success) {
        const fill = kind === 'dc' ? centreBySku(batch) : undefined;
        updated.push(...(fill ? body.data.updated.map(fill) : body.data.updated));
        errors.push(...(fill ? body.data.errors.map(fill) : body.data.errors));
      } else {
        deps.logger.warn(
          { event: 'api.bulk_unreadable', kind, size: batch.length, status },
          'bulk update answered without a readable updated/errors body; items count as missing',
        );
      }
      for (const item of batch) answered.add(item);
      return 'done';
    }
    const details = errorDetails(response.raw);
    if (batch.length > 1 && saysTooLarge(status, details)) {
      deps.sizes.rejected(kind, batch.length, deps.now());
      deps.logger.info(
        {
          event: 'api.bulk_split',
          kind,
          size: batch.length,
          status,
          into: Math.min(deps.sizes.max(kind), batch.length - 1),
        },
        'bulk update refused as too large; what remains is sent in smaller batches',
      );
      return 'too large';
    }
    // 403, 404, 408 are not about the items: the failure policy decides on them.
    if (!refusesContent(status)) throw httpError(where, response.raw, false);
    const index = itemIndex(details.field);
    const named = index === undefined ? undefined : batch[index];
    if (named !== undefined && batch.length > 1) {
      refuse(named, status, details);
      deps.logger.info(
        { event: 'api.bulk_item_refused', kind, size: batch.length, status, field: details.field },
        'bulk update refused for one item; sending the others again',
      );
      return index!;
    }
    // Refused as a whole, naming no item: a failure of this batch, with the portal's words.
    for (const item of batch) refuse(item, status, details);
    if (batch.length > 1) {
      deps.logger.warn(
        { event: 'api.bulk_refused', kind, size: batch.length, status, field: details.field },
        `bulk update refused (HTTP ${status}) without naming an item: its ${batch.length} items fail`,
      );
    }
    return 'done';
  };

  /**
   * Sends every item in batches of the size learnt so far, re-read before every batch: after a
   * refusal as too large, all that remains (the refused batch and everything after it) is cut
   * again at the new size, so no tail of small leftovers costs calls of its own; a refused size
   * is never sent again whole (`below`). An item refused by name leaves the queue and the rest
   * of its batch is cut again with what follows.
   */
  async function sendAll(all: readonly I[]): Promise<void> {
    const queue = [...all];
    let below = Number.POSITIVE_INFINITY;
    for (let at = 0; at < queue.length; ) {
      const part = queue.slice(at, at + Math.max(1, Math.min(deps.sizes.max(kind), below)));
      const outcome = await send(part);
      if (outcome === 'too large') below = part.length - 1;
      else if (typeof outcome === 'number') queue.splice(at + outcome, 1);
      else {
        below = Number.POSITIVE_INFINITY;
        at += part.length;
      }
    }
  }

  try {
    await sendAll(items);
  } catch (err) {
    if (answered.size === 0) throw err;
    throw new BulkIncompleteError<I, BulkResult>(
      err,
      { updated, errors, requests },
      items.filter((item) => !answered.has(item)),
    );
  }
  return { updated, errors, requests };
}

/**
 * Says the batch is too large: 413, or a 400/422 whose code, message or field speaks of size or
 * count ("too many items", "at most 500", "maximum", "exceeds the limit"). A field alone is not
 * enough (`body` is also named for a malformed body), and a refusal naming an item is the item's.
 */
function saysTooLarge(status: number, details: ErrorBodyDetails): boolean {
  if (status === 413) return true;
  if (status !== 400 && status !== 422) return false;
  if (itemIndex(details.field) !== undefined) return false;
  const words = [details.apiCode, details.apiMessage ?? details.excerpt, details.field].join(' ');
  return /too[\s_-]*(many|large|big|long)|at most|maximum|max[\s_-]*(items|size|count)|exceed|limit/i.test(
    words,
  );
}

/** The item an error field names by its position: `3.stock_quantity`, `items[3].sku`, `3`. */
function itemIndex(field: string | undefined): number | undefined {
  const m = field === undefined ? null : /(?:^|[.[])(\d+)(?=$|[.\]])/.exec(field);
  return m ? Number(m[1]) : undefined;
}

/**
 * DC answers may leave out the centre's code (the spec's error entry has sku, platform_sku,
 * stock_quantity and error only): an entry without it gets the code its SKU was sent with, when
 * that SKU was alone in the request (the push builds DC batches so that it always is).
 */
function centreBySku<I extends FactoryStockItem>(batch: readonly I[]) {
  const codes = new Map<string, string | null>();
  for (const item of batch) {
    const code = (item as unknown as Partial<DcStockItem>).distribution_centre_code ?? null;
    codes.set(item.sku, codes.has(item.sku) ? null : code);
  }
  return <E extends { sku?: string | null; distribution_centre_code?: string | null }>(
    entry: E,
  ): E => {
    if (entry.distribution_centre_code || typeof entry.sku !== 'string') return entry;
    const code = codes.get(entry.sku);
    return code ? { ...entry, distribution_centre_code: code } : entry;
  };
}
