import type { ShipmentsPortal } from '../api/index.ts';
import type { Clock } from '../domain/clock.ts';
import { nextAttemptAt, type RetrySettings } from '../domain/retrySchedule.ts';
import { failurePolicy } from '../failures/failurePolicy.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import {
  ConfirmationSends,
  type PendingConfirmation,
} from '../state/shipments/confirmationSends.ts';
import { ShipmentStore } from '../state/shipments/shipmentStore.ts';

export interface ConfirmDeps {
  readonly db: StateDb;
  readonly port: ShipmentsPortal;
  readonly log: Logger;
  readonly clock: Clock;
  readonly retry: RetrySettings;
  readonly signal?: AbortSignal;
  /** Called with the inbox files whose confirmations got a final answer (to update their reports). */
  readonly onFilesAnswered?: (fileIds: readonly number[]) => Promise<void> | void;
}

export interface ConfirmTotals {
  confirmed: number;
  failed: number;
  retrying: number;
}

/** Sends every due confirmation, oldest first. Each is sent at most once to success. */
export async function sendConfirmations(deps: ConfirmDeps): Promise<ConfirmTotals> {
  const sends = new ConfirmationSends(deps.db);
  const shipments = new ShipmentStore(deps.db);
  const totals: ConfirmTotals = { confirmed: 0, failed: 0, retrying: 0 };
  const answeredFiles = new Set<number>();
  try {
    for (;;) {
      const due = sends.due(deps.clock.now());
      if (due.length === 0) break;
      for (const c of due) {
        if (deps.signal?.aborted) return totals;
        const outcome = await sendOne(c, sends, deps);
        if (outcome === 'confirmed') shipments.markConfirmed(c.orderNumber, deps.clock.now());
        if (outcome !== 'retrying' && c.fileId !== null) answeredFiles.add(c.fileId);
        totals[outcome]++;
      }
    }
  } finally {
    if (answeredFiles.size > 0) await deps.onFilesAnswered?.([...answeredFiles]);
  }
  return totals;
}

async function sendOne(
  c: PendingConfirmation,
  sends: ConfirmationSends,
  deps: ConfirmDeps,
): Promise<'confirmed' | 'failed' | 'retrying'> {
  const fields = {
    order_number: c.orderNumber,
    action: c.action,
    carrier: c.carrier,
    attempt: c.attempts + 1,
  };
  const other = sends.confirmedOtherParcel(c);
  if (other !== undefined) {
    // Another parcel was confirmed for the order while this one waited (a send in flight when a
    // correction came): a conflict, as if it had arrived after, never sent.
    const error = `order already confirmed with carrier ${other.carrier}, tracking ${other.trackingNumber}`;
    sends.conflict(c.id, error);
    deps.log.warn(
      { event: 'shipment.confirm_conflict', ...fields, error },
      `${c.action} for ${c.orderNumber} not sent: ${error}`,
    );
    return 'failed';
  }
  const afterUnanswered = c.attempts > 0;
  sends.beginAttempt(c.id);
  try {
    await deps.port.confirm(c, { afterUnanswered, signal: deps.signal });
    sends.confirmed(c.id, deps.clock.now());
    deps.log.info(
      { event: 'shipment.confirmed', ...fields },
      `order ${c.orderNumber} marked ${c.action}`,
    );
    return 'confirmed';
  } catch (err) {
    const action = failurePolicy(err);
    const message = err instanceof Error ? err.message : String(err);
    if (action.kind === 'final') {
      sends.failed(c.id, message);
      deps.log.warn(
        { event: 'shipment.confirm_failed', ...fields, error: message },
        `portal refused ${c.action} for ${c.orderNumber}: ${message}`,
      );
      return 'failed';
    }
    const now = deps.clock.now();
    if (action.kind !== 'retry') {
      // wait, fix-config: nothing was decided about this confirmation; it goes again when the
      // lane does (the job waits, or stops until the configuration is fixed).
      sends.retryLater(c.id, message, action.kind === 'wait' ? action.until : now, false);
      throw err;
    }
    const at = Math.max(
      action.notBefore ?? 0,
      nextAttemptAt(c.attempts + 1, false, now, deps.retry),
    );
    sends.retryLater(c.id, message, at, !action.outcomeUnknown);
    deps.log.warn(
      {
        event: 'shipment.confirm_retry',
        ...fields,
        error: message,
        nextAttemptAt: new Date(at).toISOString(),
      },
      `confirmation of ${c.orderNumber} will be retried`,
    );
    return 'retrying';
  }
}
