import type { StockKind, StockRow } from '../domain/stock.ts';
import type { RemoteRow } from '../state/remoteStock.ts';
import type { BulkAnswer } from './decide/bulkResult.ts';

/** What the sync engine needs of the portal to write stock; the API client provides it. */
export interface StockWriter {
  /** The largest batch to send for a kind (configured, or smaller once the portal said so). */
  maxBatchSize(kind: StockKind): number;
  /** One bulk update (the client may split it when the portal finds it too large). */
  bulkUpdate(kind: StockKind, rows: readonly StockRow[], signal?: AbortSignal): Promise<BulkAnswer>;
}

/** One page of the portal's stock list. */
export interface RemotePage {
  readonly rows: readonly RemoteRow[];
  /** Cursor of the page after this one; null at the end. */
  readonly nextCursor: string | null;
}

/** What reconciliation needs of the portal to read stock. */
export interface StockReader {
  /** Pages of a kind's stock list, starting at `cursor` (null: the first page). */
  pages(kind: StockKind, cursor: string | null, signal?: AbortSignal): AsyncIterable<RemotePage>;
}
