import type { Clock } from '../domain/clock.ts';
import { nextAttemptAt, type RetrySettings } from '../domain/retrySchedule.ts';
import type { Logger } from '../log/logger.ts';
import { ConfirmationSends, type PendingConfirmation } from '../state/confirmationSends.ts';
import type { StateDb } from '../state/db.ts';
import { ShipmentStore } from '../state/shipments.ts';
import type { ShipmentsPort } from './ports.ts';

export interface ConfirmDeps {
  readonly db: StateDb;
  readonly port: ShipmentsPort;
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

/** How the portal's answer to a confirmation is taken. */
export type ConfirmVerdict = 'permanent' | 'retry' | 'stop';

/**
 * A 4xx that is not about auth or rate limits means the portal refuses this confirmation (unknown
 * order, a state it will not move from): final. Spent budget, login trouble: stop this run and
 * let the job wait. Anything else (5xx, timeouts, resets, 429 after retries): try again later.
 */
export function classifyConfirmError(err: unknown): { verdict: ConfirmVerdict; answered: boolean } {
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    code?: unknown;
    status?: unknown;
  };
  if (e.code === 'E_BUDGET' || e.code === 'E_LOGIN_BLOCKED' || e.code === 'E_LOGIN_REJECTED') {
    return { verdict: 'stop', answered: false };
  }
  const status = typeof e.status === 'number' ? e.status : undefined;
  if (status !== undefined && status >= 400 && status < 500 && ![401, 408, 429].includes(status)) {
    return { verdict: 'permanent', answered: true };
  }
  const unanswered = e.code === 'E_NETWORK' || e.code === 'E_TIMEOUT' || status === undefined;
  return { verdict: 'retry', answered: !unanswered };
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
  const afterUnanswered = c.attempts > 0;
  sends.beginAttempt(c.id);
  const fields = {
    order_number: c.orderNumber,
    action: c.action,
    carrier: c.carrier,
    attempt: c.attempts + 1,
  };
  try {
    await deps.port.confirm(c, { afterUnanswered, signal: deps.signal });
    sends.confirmed(c.id, deps.clock.now());
    deps.log.info(
      { event: 'shipment.confirmed', ...fields },
      `order ${c.orderNumber} marked ${c.action}`,
    );
    return 'confirmed';
  } catch (err) {
    const { verdict, answered } = classifyConfirmError(err);
    const message = err instanceof Error ? err.message : String(err);
    if (verdict === 'permanent') {
      sends.failed(c.id, message);
      deps.log.warn(
        { event: 'shipment.confirm_failed', ...fields, error: message },
        `portal refused ${c.action} for ${c.orderNumber}: ${message}`,
      );
      return 'failed';
    }
    const at =
      verdict === 'stop'
        ? deps.clock.now()
        : nextAttemptAt(c.attempts + 1, false, deps.clock.now(), deps.retry);
    sends.retryLater(c.id, message, at, answered);
    if (verdict === 'stop') throw err;
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
