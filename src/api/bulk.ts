import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { errorDetails } from './body.ts';
import type { Caller } from './caller.ts';
import { type CallOptions, httpError } from './request.ts';
import { type StockError, type StockUpdated, stockUpdateResultSchema } from './schemas.ts';

export type BulkKind = 'factory' | 'dc';

export interface FactoryStockItem {
  readonly sku: string;
  /** The new absolute total. */
  readonly stock_quantity: number;
}

export interface DcStockItem extends FactoryStockItem {
  readonly distribution_centre_code: string;
}

export interface BulkResult<I> {
  /** As the portal said, over every batch. */
  readonly updated: StockUpdated[];
  /**
   * As the portal said, plus one entry (with `status`) for each item whose one-item request was
   * refused as a whole.
   */
  readonly errors: Array<StockError & { readonly status?: number }>;
  /** Items sent that appear in neither list: treat them as not updated. */
  readonly missing: I[];
  /** Requests sent (batches, including the halves of split ones). */
  readonly requests: number;
}

/** Statuses with which a portal may refuse a request body as too large. */
const TOO_LARGE = new Set([400, 413, 422]);

interface SizeState {
  /** Largest batch the portal accepted since it last refused one as too large. */
  readonly maxAccepted: number | null;
  /** Smallest batch refused as too large. */
  readonly minRejected: number;
}

/** The largest batch per kind the portal has accepted, learnt from refusals and kept in kv. */
export class BatchSizes {
  readonly #kv: KeyValueStore;
  readonly #configured: number;

  constructor(db: StateDb, configured: number) {
    this.#kv = new KeyValueStore(db);
    this.#configured = configured;
  }

  /**
   * min(bulkBatchSize, the learnt size). While the largest size accepted and the smallest refused
   * are more than 5 % apart, the size between them is tried (a binary search over real batches):
   * halving alone would settle far below the portal's limit (1000 → 500 → 250 for a limit of
   * 400) and every later push would pay for it.
   */
  max(kind: BulkKind): number {
    const s = this.#state(kind);
    if (s === undefined) return this.#configured;
    const accepted = s.maxAccepted;
    let learnt: number;
    if (accepted === null) learnt = Math.max(1, Math.floor(s.minRejected / 2));
    else if (s.minRejected - accepted > Math.max(1, Math.floor(accepted * 0.05))) {
      learnt = Math.floor((accepted + s.minRejected) / 2);
    } else learnt = accepted;
    return Math.max(1, Math.min(this.#configured, learnt));
  }

  rejected(kind: BulkKind, size: number): void {
    const s = this.#state(kind);
    const minRejected = Math.min(size, s?.minRejected ?? size);
    const maxAccepted =
      s?.maxAccepted != null && s.maxAccepted < minRejected ? s.maxAccepted : null;
    this.#kv.set(this.#key(kind), { maxAccepted, minRejected } satisfies SizeState);
  }

  accepted(kind: BulkKind, size: number): void {
    const s = this.#state(kind);
    if (s === undefined) return; // never refused: the configured size stands
    if (size >= s.minRejected || (s.maxAccepted !== null && size <= s.maxAccepted)) return;
    this.#kv.set(this.#key(kind), { ...s, maxAccepted: size } satisfies SizeState);
  }

  /** Forgets what was learnt (after the portal raised its limit). */
  forget(kind: BulkKind): void {
    this.#kv.delete(this.#key(kind));
  }

  #key(kind: BulkKind): string {
    return `api.bulk_max.${kind}`;
  }

  #state(kind: BulkKind): SizeState | undefined {
    return this.#kv.get<SizeState>(this.#key(kind));
  }
}

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
): Promise<BulkResult<I>> {
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
  return { updated, errors, missing: findMissing(kind, items, updated, errors), requests };
}

/** A field that names one item (`3.sku`, `items[3]`, `sku`) means a bad item, not a big body. */
function isItemField(field: string | undefined): boolean {
  if (field === undefined) return false;
  return /\d|^(sku|stock_quantity|distribution_centre_code)$/.test(field);
}

function keyOf(
  kind: BulkKind,
  sku: string | null | undefined,
  dc: string | null | undefined,
): string {
  return kind === 'factory' ? `${sku ?? ''}` : `${dc ?? ''}\u0000${sku ?? ''}`;
}

/** Items that appear in neither `updated` nor `errors` (by sku, and centre for DC stock). */
export function findMissing<I extends FactoryStockItem>(
  kind: BulkKind,
  items: readonly I[],
  updated: readonly StockUpdated[],
  errors: readonly StockError[],
): I[] {
  const answered = new Set<string>();
  for (const u of updated) answered.add(keyOf(kind, u.sku, u.distribution_centre_code));
  for (const e of errors) answered.add(keyOf(kind, e.sku, e.distribution_centre_code));
  return items.filter((item) => {
    const dc =
      kind === 'dc' ? (item as unknown as DcStockItem).distribution_centre_code : undefined;
    return !answered.has(keyOf(kind, item.sku, dc));
  });
}
