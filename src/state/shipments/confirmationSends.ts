import type { Confirmation } from '../../domain/shipment.ts';
import type { StateDb } from '../db.ts';
import type { ConfirmationRow } from './shipmentTables.ts';

/** A stored confirmation that may still be sent. */
export interface PendingConfirmation extends Confirmation {
  readonly id: number;
  readonly attempts: number;
  readonly fileId: number | null;
  readonly line: number | null;
}

export interface ConfirmationFailure extends PendingConfirmation {
  readonly key: string;
  readonly status: 'failed' | 'conflict';
  readonly error: string | null;
  readonly createdAt: number;
}

type Row = Pick<
  ConfirmationRow,
  | 'id'
  | 'order_number'
  | 'action'
  | 'carrier'
  | 'tracking_number'
  | 'is_collected'
  | 'attempts'
  | 'file_id'
  | 'line'
  | 'status'
  | 'error'
  | 'created_at'
>;

const toPending = (r: Row): PendingConfirmation => ({
  id: r.id,
  orderNumber: r.order_number,
  action: r.action,
  carrier: r.carrier,
  trackingNumber: r.tracking_number,
  isCollected: r.is_collected === 1,
  attempts: r.attempts,
  fileId: r.file_id,
  line: r.line,
});

/**
 * Pending confirmations that may go now: a 'collected' waits while its order's 'shipped' is still
 * pending (sent, retrying, or waiting its turn), so the portal always sees them in that order.
 */
const SENDABLE = `status = 'pending' AND NOT (action = 'collected' AND EXISTS (
    SELECT 1 FROM shipment_confirmations s
     WHERE s.order_number = shipment_confirmations.order_number AND s.action = 'shipped'
       AND s.status = 'pending'))`;

/** `failures retry` key of a confirmation. */
export const confirmationKey = (c: { orderNumber: string; action: string }) =>
  `shipment:${c.orderNumber}:${c.action}`;

/** The sending side of shipment confirmations: what is due, and what the portal answered. */
export class ConfirmationSends {
  readonly #db: StateDb;
  readonly #due;
  readonly #begin;
  readonly #confirmed;
  readonly #wakeCollected;
  readonly #conflict;
  readonly #confirmedParcel;
  readonly #failed;
  readonly #retry;
  readonly #failures;
  readonly #counts;
  readonly #nextDue;
  readonly #retryAll;
  readonly #retryKey;
  readonly #byFile;

  constructor(db: StateDb) {
    this.#db = db;
    this.#due = db.prepare<[number, number], Row>(
      `SELECT * FROM shipment_confirmations WHERE ${SENDABLE} AND next_attempt_at <= ? ORDER BY id LIMIT ?`,
    );
    this.#begin = db.prepare<[number]>(
      'UPDATE shipment_confirmations SET attempts = attempts + 1, sent_without_answer = 1 WHERE id = ?',
    );
    // Whatever the row's status now (a correction may have replaced it meanwhile): the portal
    // took it, and that is the truth to keep.
    this.#confirmed = db.prepare<[number, number]>(
      `UPDATE shipment_confirmations SET status = 'confirmed', confirmed_at = ?, error = NULL, sent_without_answer = 0 WHERE id = ?`,
    );
    this.#wakeCollected = db.prepare<[number, number, number]>(
      `UPDATE shipment_confirmations SET next_attempt_at = ?
        WHERE status = 'pending' AND action = 'collected' AND next_attempt_at > ?
          AND order_number = (SELECT order_number FROM shipment_confirmations WHERE id = ? AND action = 'shipped')`,
    );
    // A refusal or a retry of a row a correction replaced meanwhile leaves it replaced.
    this.#failed = db.prepare<[string, number]>(
      `UPDATE shipment_confirmations SET status = 'failed', error = ?, sent_without_answer = 0 WHERE id = ? AND status = 'pending'`,
    );
    this.#retry = db.prepare<[string, number, number, number]>(
      `UPDATE shipment_confirmations SET error = ?, next_attempt_at = ?, sent_without_answer = ? WHERE id = ? AND status = 'pending'`,
    );
    this.#conflict = db.prepare<[string, number]>(
      `UPDATE shipment_confirmations SET status = 'conflict', error = ? WHERE id = ? AND status = 'pending'`,
    );
    this.#confirmedParcel = db.prepare<
      [string, string, string],
      { carrier: string; tracking_number: string }
    >(
      `SELECT carrier, tracking_number FROM shipment_confirmations
        WHERE order_number = ? AND status = 'confirmed' AND (carrier != ? OR tracking_number != ?)
        ORDER BY id LIMIT 1`,
    );
    this.#failures = db.prepare<[], Row>(
      `SELECT * FROM shipment_confirmations WHERE status IN ('failed', 'conflict') ORDER BY id`,
    );
    this.#counts = db.prepare<
      [number],
      { pending: number; confirmed_today: number; failed: number; conflict: number }
    >(
      // Each count searches the (status, …) indexes, never the whole table: it grows with time.
      `SELECT (SELECT COUNT(*) FROM shipment_confirmations WHERE status = 'pending') AS pending,
              (SELECT COUNT(*) FROM shipment_confirmations
                WHERE status = 'confirmed' AND confirmed_at >= ?) AS confirmed_today,
              (SELECT COUNT(*) FROM shipment_confirmations WHERE status = 'failed') AS failed,
              (SELECT COUNT(*) FROM shipment_confirmations WHERE status = 'conflict') AS conflict`,
    );
    this.#nextDue = db.prepare<[], { at: number | null }>(
      `SELECT MIN(next_attempt_at) AS at FROM shipment_confirmations WHERE ${SENDABLE}`,
    );
    this.#retryAll = db.prepare<[number]>(
      `UPDATE shipment_confirmations SET status = 'pending', next_attempt_at = ? WHERE status = 'failed'`,
    );
    this.#retryKey = db.prepare<[number, string, string]>(
      `UPDATE shipment_confirmations SET status = 'pending', next_attempt_at = ?
        WHERE status = 'failed' AND order_number = ? AND action = ?`,
    );
    this.#byFile = db.prepare<[number], Row>(
      'SELECT * FROM shipment_confirmations WHERE file_id = ? ORDER BY line, id',
    );
  }

  due(now: number, limit = 100): PendingConfirmation[] {
    return this.#due.all(now, limit).map(toPending);
  }

  /** Recorded before the call: if the process dies during it, the next attempt knows it may have landed. */
  beginAttempt(id: number): void {
    this.#begin.run(id);
  }

  /** The portal took it; a 'shipped' makes its order's waiting 'collected' due at once. */
  confirmed(id: number, now: number): void {
    this.#db.transaction(() => {
      this.#confirmed.run(now, id);
      this.#wakeCollected.run(now, now, id);
    })();
  }

  /**
   * The order was confirmed on the portal with another parcel since this row was stored (a send
   * that was in flight when a correction came): what that parcel was, else undefined.
   */
  confirmedOtherParcel(c: Confirmation): { carrier: string; trackingNumber: string } | undefined {
    const r = this.#confirmedParcel.get(c.orderNumber, c.carrier, c.trackingNumber);
    return r && { carrier: r.carrier, trackingNumber: r.tracking_number };
  }

  /** Closes a pending row as a conflict (never sent). */
  conflict(id: number, error: string): void {
    this.#conflict.run(error, id);
  }

  failed(id: number, error: string): void {
    this.#failed.run(error, id);
  }

  /** Try again at `at`; `answered` says whether the portal answered the last attempt at all. */
  retryLater(id: number, error: string, at: number, answered: boolean): void {
    this.#retry.run(error, at, answered ? 0 : 1, id);
  }

  failures(): ConfirmationFailure[] {
    return this.#failures.all().map((r) => ({
      ...toPending(r),
      key: confirmationKey({ orderNumber: r.order_number, action: r.action }),
      status: r.status as 'failed' | 'conflict',
      error: r.error,
      createdAt: r.created_at,
    }));
  }

  counts(dayStart: number): {
    pending: number;
    confirmedToday: number;
    failed: number;
    conflicts: number;
  } {
    const r = this.#counts.get(dayStart);
    return {
      pending: r?.pending ?? 0,
      confirmedToday: r?.confirmed_today ?? 0,
      failed: r?.failed ?? 0,
      conflicts: r?.conflict ?? 0,
    };
  }

  nextDueAt(): number | null {
    return this.#nextDue.get()?.at ?? null;
  }

  /** Puts failed confirmations back in line (`failures retry`); conflicts stay for the operator. */
  retryNow(keys: readonly { orderNumber: string; action: string }[] | 'all', now: number): number {
    if (keys === 'all') return this.#retryAll.run(now).changes;
    return this.#db.transaction(() =>
      keys.reduce((n, k) => n + this.#retryKey.run(now, k.orderNumber, k.action).changes, 0),
    )();
  }

  /** Every confirmation that came from one inbox file, for its report. */
  ofFile(fileId: number): Array<PendingConfirmation & { status: string; error: string | null }> {
    return this.#byFile
      .all(fileId)
      .map((r) => ({ ...toPending(r), status: r.status, error: r.error }));
  }
}
