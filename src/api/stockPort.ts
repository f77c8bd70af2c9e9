import type { StockKind, StockRow } from '../domain/stock.ts';
import type { RemoteRow } from '../state/stock/remoteStock.ts';
import type { BulkAnswer } from './bulk.ts';
import type { PortalClient } from './client.ts';

/**
 * The portal as the stock sync sees it (src/sync/): a writer that pushes stock rows in bulk, in
 * the 'stock' lane of the budget, in batches of the size the portal accepts, answered item by
 * item; and a reader of the portal's stock lists, a page a call. Both are built on the one
 * client (its token, budget and back-off) by `stockPortal`.
 */
export interface StockPortal {
  readonly writer: StockWriter;
  readonly reader: StockReader;
}

/** Stock pushes to the portal, in the 'stock' lane of the budget. */
export interface StockWriter {
  /** The largest batch to send for a kind (configured, or smaller once the portal said so). */
  maxBatchSize(kind: StockKind): number;
  /** When the batch size of a kind was learnt from a refusal (0: unknown); null when not. */
  batchSizeLearntAt(kind: StockKind): number | null;
  /** Forgets the learnt batch size (of both kinds): the configured one is tried again. */
  forgetBatchSize(kind: StockKind): void;
  /**
   * One bulk update (split into batches the portal accepts). A failure after some parts were
   * answered is a BulkIncompleteError holding those answers (a BulkAnswer) and the items not sent
   * (`sku`, and `distribution_centre_code` for DC).
   */
  bulkUpdate(kind: StockKind, rows: readonly StockRow[], signal?: AbortSignal): Promise<BulkAnswer>;
}

/** One page of the portal's stock list. */
export interface RemotePage {
  readonly rows: readonly RemoteRow[];
  /** Cursor of the page after this one; null at the end. */
  readonly nextCursor: string | null;
  /** Rows in the whole list, when the portal says so (meta.total; the spec does not show it). */
  readonly total?: number | undefined;
}

export interface ReadOptions {
  readonly signal?: AbortSignal | undefined;
  /**
   * The read serves a push (learning the portal on a first start): it spends the push's share of
   * the budget ('stock' lane), not the reconciliation's ('reconcile' lane).
   */
  readonly forPush?: boolean | undefined;
}

/** Reads of the portal's stock. */
export interface StockReader {
  /** One page of a kind's stock list, at `cursor` (null: the first page). */
  page(kind: StockKind, cursor: string | null, options?: ReadOptions): Promise<RemotePage>;
}

/** The stock writer and reader over one client. */
export function stockPortal(client: PortalClient): StockPortal {
  return { writer: stockWriter(client), reader: stockReader(client) };
}

function stockWriter(client: PortalClient): StockWriter {
  return {
    maxBatchSize: (kind) => client.maxBatchSize(kind),
    batchSizeLearntAt: (kind) => client.batchSizeLearntAt(kind),
    forgetBatchSize: (kind) => client.forgetBatchSize(kind),
    async bulkUpdate(kind, rows, signal) {
      const options = { lane: 'stock' as const, signal };
      const result =
        kind === 'factory'
          ? await client.factoryStock.bulkUpdate(
              rows.map((r) => ({ sku: r.sku, stock_quantity: r.quantity })),
              options,
            )
          : await client.dcStock.bulkUpdate(
              rows.map((r) => ({
                distribution_centre_code: r.dc,
                sku: r.sku,
                stock_quantity: r.quantity,
              })),
              options,
            );
      return { updated: result.updated, errors: result.errors };
    },
  };
}

function stockReader(client: PortalClient): StockReader {
  return {
    async page(kind, cursor, { signal, forPush } = {}) {
      const options = { lane: forPush ? ('stock' as const) : ('reconcile' as const), signal };
      const query = cursor === null ? {} : { cursor };
      if (kind === 'factory') {
        const page = await client.factoryStock.list(query, options);
        return {
          nextCursor: page.nextCursor,
          total: page.total,
          rows: page.items.map((i) => ({
            kind,
            dc: '',
            sku: i.sku,
            quantity: i.stock_quantity,
            platformSku: i.platform_sku ?? null,
          })),
        };
      }
      const page = await client.dcStock.list(query, options);
      return {
        nextCursor: page.nextCursor,
        total: page.total,
        rows: page.items.map((i) => ({
          kind,
          dc: i.distribution_centre_code,
          sku: i.sku,
          quantity: i.stock_quantity,
          platformSku: i.platform_sku ?? null,
        })),
      };
    },
  };
}
