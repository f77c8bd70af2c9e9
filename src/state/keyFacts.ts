import type { StockKey, StockKind } from '../domain/stock.ts';
import type { StateDb } from './db.ts';
import type { InboxFileRow } from './inbox/inboxTables.ts';
import type { ConfirmationRow, ShipmentRow } from './shipments/shipmentTables.ts';
import type { StockFailure } from './stock/stockFailures.ts';
import { type LastPush, StockPushes } from './stock/stockPushes.ts';
import type {
  DesiredStockRow,
  PendingStockRow,
  RemoteStockRow,
  StockFailureRow,
} from './stock/stockTables.ts';

/**
 * What state.db knows of one stock key or one shipment, for `explain`: plain rows, read in one
 * read transaction so that the story is of one moment. Read-only: works on a read-only connection.
 */

/** The desired row of a key (desired_stock), with the columns later versions add when present. */
export interface DesiredFacts {
  /** The quantity offered to the portal (after the stock rules, where they exist). */
  readonly quantity: number;
  /** The quantity the ERP asked for (before the stock rules). */
  readonly erpQuantity: number;
  /** `file:<ledger id>` or `snapshot`. */
  readonly source: string;
  /** The ledger id of the file the value came from; null for the snapshot. */
  readonly sourceFileId: number | null;
  /** The line (or record) of that file; null where it is not recorded. */
  readonly sourceLine: number | null;
  /** When the ERP wrote the source (a file's time, the snapshot's last write); 0 when unknown. */
  readonly sourceAt: number;
  /** When the daemon applied it. */
  readonly appliedAt: number;
  /** The label of the stock rule applied (`rules[2]: sku SKU-1* → buffer 5`); null when none. */
  readonly rule: string | null;
  /** A rule excludes the key: never pushed. */
  readonly excluded: boolean;
}

/** The ledger row of a file, as `explain` names it. */
export interface FileFacts {
  readonly id: number;
  /** Its name in inbox/. */
  readonly name: string;
  /** Its name in processed/ (or failed/), once moved. */
  readonly storedAs: string | null;
  readonly receivedAt: number;
}

export interface StockFacts {
  readonly desired: DesiredFacts | null;
  readonly file: FileFacts | null;
  readonly remote: { readonly quantity: number; readonly seenAt: number } | null;
  /** When the key became pending; null when no push is owed. */
  readonly pendingSince: number | null;
  /** The stored failure of the key (stockFailures.ts), without the key's own fields. */
  readonly failure: Omit<StockFailure, keyof StockKey | 'key'> | null;
  readonly lastPush: LastPush | null;
}

export interface ShipmentFacts {
  readonly orderNumber: string;
  /** The shipment as the portal last listed it; null when only confirmations name the order. */
  readonly shipment: {
    readonly record: unknown;
    readonly firstSeenAt: number;
    readonly lastSeenAt: number;
    readonly leftListAt: number | null;
    readonly exportedAt: number | null;
    readonly exportFile: string | null;
    /** The hand-over is committed but its file is not in outbox/ yet (finished at start). */
    readonly exportUnfinished: boolean;
    readonly confirmedAt: number | null;
    readonly unconfirmedWarnedAt: number | null;
  } | null;
  readonly confirmations: ReadonlyArray<{
    readonly action: string;
    readonly carrier: string;
    readonly trackingNumber: string;
    readonly isCollected: boolean;
    /** pending, confirmed, failed, conflict or replaced. */
    readonly status: string;
    readonly error: string | null;
    readonly attempts: number;
    readonly nextAttemptAt: number;
    readonly file: FileFacts | null;
    readonly line: number | null;
    readonly receivedAt: number;
    readonly confirmedAt: number | null;
  }>;
}

type FileRow = Pick<InboxFileRow, 'id' | 'name' | 'dest_name' | 'received_at'>;

const toFile = (r: FileRow | undefined): FileFacts | null =>
  r === undefined
    ? null
    : { id: r.id, name: r.name, storedAs: r.dest_name, receivedAt: r.received_at };

const fileId = (r: DesiredStockRow): number | null => {
  if (r.source_file_id !== null) return r.source_file_id;
  const m = /^file:(\d+)$/.exec(r.source);
  return m ? Number(m[1]) : null;
};

function toDesired(r: DesiredStockRow): DesiredFacts {
  return {
    quantity: r.quantity,
    erpQuantity: r.erp_quantity ?? r.quantity,
    source: r.source,
    sourceFileId: fileId(r),
    sourceLine: r.source_line,
    sourceAt: r.source_at,
    appliedAt: r.updated_at,
    rule: r.rule,
    excluded: r.excluded === 1,
  };
}

/** Reads what is known of one stock key (every part null when nothing is). */
export function readStockFacts(db: StateDb, key: StockKey): StockFacts {
  type Args = [StockKind, string, string];
  const args: Args = [key.kind, key.dc, key.sku];
  const where = 'WHERE kind = ? AND dc = ? AND sku = ?';
  const file = db.prepare<[number], FileRow>(
    'SELECT id, name, dest_name, received_at FROM inbox_files WHERE id = ?',
  );
  return db.transaction((): StockFacts => {
    const d = db
      .prepare<Args, DesiredStockRow>(`SELECT * FROM desired_stock ${where}`)
      .get(...args);
    const desired = d === undefined ? null : toDesired(d);
    const remote = db
      .prepare<Args, Pick<RemoteStockRow, 'quantity' | 'seen_at'>>(
        `SELECT quantity, seen_at FROM remote_stock ${where}`,
      )
      .get(...args);
    const pending = db
      .prepare<Args, Pick<PendingStockRow, 'since'>>(`SELECT since FROM pending_stock ${where}`)
      .get(...args);
    const f = db
      .prepare<Args, StockFailureRow>(`SELECT * FROM stock_failures ${where}`)
      .get(...args);
    return {
      desired,
      file: desired?.sourceFileId == null ? null : toFile(file.get(desired.sourceFileId)),
      remote: remote ? { quantity: remote.quantity, seenAt: remote.seen_at } : null,
      pendingSince: pending?.since ?? null,
      failure: f
        ? {
            quantity: f.quantity,
            error: f.error,
            notFound: f.not_found === 1,
            attempts: f.attempts,
            firstFailedAt: f.first_failed_at,
            lastFailedAt: f.last_failed_at,
            nextAttemptAt: f.next_attempt_at,
          }
        : null,
      lastPush: new StockPushes(db).last(key) ?? null,
    };
  })();
}

/** Reads what is known of one order: the shipment row, its hand-over, its confirmations. */
export function readShipmentFacts(db: StateDb, orderNumber: string): ShipmentFacts {
  return db.transaction((): ShipmentFacts => {
    const s = db
      .prepare<[string], ShipmentRow & { unfinished: number }>(
        `SELECT s.*, EXISTS (SELECT 1 FROM outbox_handovers h WHERE h.name = s.export_file) AS unfinished
           FROM shipments s WHERE s.order_number = ?`,
      )
      .get(orderNumber);
    const rows = db
      .prepare<
        [string],
        ConfirmationRow & {
          file_name: InboxFileRow['name'] | null;
          dest_name: InboxFileRow['dest_name'];
          received_at: InboxFileRow['received_at'] | null;
        }
      >(
        `SELECT c.*, f.name AS file_name, f.dest_name, f.received_at
           FROM shipment_confirmations c LEFT JOIN inbox_files f ON f.id = c.file_id
          WHERE c.order_number = ? ORDER BY c.id`,
      )
      .all(orderNumber);
    return {
      orderNumber,
      shipment: s
        ? {
            record: JSON.parse(s.record) as unknown,
            firstSeenAt: s.first_seen_at,
            lastSeenAt: s.last_seen_at,
            leftListAt: s.left_list_at,
            exportedAt: s.exported_at,
            exportFile: s.export_file,
            exportUnfinished: s.unfinished === 1,
            confirmedAt: s.confirmed_at,
            unconfirmedWarnedAt: s.unconfirmed_warned_at,
          }
        : null,
      confirmations: rows.map((c) => ({
        action: c.action,
        carrier: c.carrier,
        trackingNumber: c.tracking_number,
        isCollected: c.is_collected === 1,
        status: c.status,
        error: c.error,
        attempts: c.attempts,
        nextAttemptAt: c.next_attempt_at,
        file:
          c.file_id === null || c.file_name === null
            ? null
            : {
                id: c.file_id,
                name: c.file_name,
                storedAs: c.dest_name,
                receivedAt: c.received_at ?? 0,
              },
        line: c.line,
        receivedAt: c.created_at,
        confirmedAt: c.confirmed_at,
      })),
    };
  })();
}
