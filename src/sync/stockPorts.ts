import type { StockKind, StockRow } from '../domain/stock.ts';
import type { RemoteRow } from '../state/stock/remoteStock.ts';
import type { BulkAnswer } from './decide/bulkResult.ts';

/** What the sync engine needs of the portal to write stock; the API client provides it. */
export interface StockWriter {
  /** The largest batch to send for a kind (configured, or smaller once the portal said so). */
  maxBatchSize(kind: StockKind): number;
  /** When the batch size of a kind was learnt from a refusal (0: unknown); null when not. */
  batchSizeLearntAt(kind: StockKind): number | null;
  /** Forgets the learnt batch size (of both kinds): the configured one is tried again. */
  forgetBatchSize(kind: StockKind): void;
  /**
   * One bulk update (the client may split it when the portal finds it too large). A failure
   * after some parts were answered is a BulkIncompleteError (api/portalErrors.ts) holding those answers
   * (a BulkAnswer) and the items not sent (`sku`, and `distribution_centre_code` for DC).
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
   * the budget, not the reconciliation's.
   */
  readonly forPush?: boolean | undefined;
}

/** What reconciliation needs of the portal to read stock. */
export interface StockReader {
  /** One page of a kind's stock list, at `cursor` (null: the first page). */
  page(kind: StockKind, cursor: string | null, options?: ReadOptions): Promise<RemotePage>;
}
