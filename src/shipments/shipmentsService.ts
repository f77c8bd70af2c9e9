import type { ShipmentsPortal } from '../api/index.ts';
import type { Clock } from '../domain/clock.ts';
import type { RetrySettings } from '../domain/retrySchedule.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { ConfirmationSends } from '../state/shipments/confirmationSends.ts';
import { type ConfirmTotals, sendConfirmations } from './confirm.ts';
import { type OutboxDeps, recoverOutbox } from './outbox.ts';
import type { OutboxFormat } from './outboxFormat.ts';
import { pollReadyToShip } from './poll.ts';
import { checkDeadline, checkUnconfirmed, type ShipmentWatchDeps } from './watch.ts';

/** What the shipments flow needs from around it. */
export interface ShipmentsEdges {
  readonly db: StateDb;
  readonly portal: ShipmentsPortal;
  readonly log: Logger;
  readonly clock: Clock;
  /** Aborts on shutdown: confirmations stop between calls. */
  readonly signal: AbortSignal;
  /** Where and how ready-to-ship orders are handed to the ERP (OUTBOX_FORMAT). */
  readonly outbox: { readonly dir: string; readonly format: OutboxFormat };
  /** Back-off of confirmations the portal refused for now. */
  readonly retry: RetrySettings;
  /** SYNC_TIMEZONE, SHIPMENTS_DEADLINE and SHIPMENTS_CONFIRM_WARN_MS. */
  readonly watch: Pick<ShipmentWatchDeps, 'timezone' | 'deadline' | 'confirmWarnMs'>;
  /** Called with the inbox files whose confirmations got a final answer (their reports). */
  readonly onFilesAnswered: (fileIds: readonly number[]) => Promise<void>;
}

/** Shipments: ready-to-ship orders to the ERP's outbox, the ERP's confirmations to the portal. */
export interface Shipments {
  /** Polls the orders ready to ship today and hands the new ones to the ERP in one outbox file. */
  poll(): Promise<{ readonly listed: number; readonly exported: number }>;
  /** Sends every confirmation that is due. */
  confirm(): Promise<ConfirmTotals>;
  /** Finishes a hand-over to the outbox that an earlier run could not (at start). */
  recoverOutbox(): Promise<void>;
  /** At SHIPMENTS_DEADLINE: the orders handed over today and not confirmed (logged, notified). */
  checkDeadline(): string[];
  /** Names the shipments handed over long ago without a confirmation; how many. */
  checkUnconfirmed(): number;
  /** A confirmation is due now. */
  confirmationsDue(): boolean;
}

export function createShipments(edges: ShipmentsEdges): Shipments {
  const { db, log, clock, signal } = edges;
  const outbox: OutboxDeps = {
    db,
    log,
    clock,
    outboxDir: edges.outbox.dir,
    format: edges.outbox.format,
  };
  const watch: ShipmentWatchDeps = { db, log, clock, ...edges.watch };
  return {
    async poll() {
      const outcome = await pollReadyToShip({ ...outbox, port: edges.portal, signal });
      return { listed: outcome.listed, exported: outcome.exported?.count ?? 0 };
    },
    confirm: () =>
      sendConfirmations({
        db,
        log,
        clock,
        signal,
        port: edges.portal,
        retry: edges.retry,
        onFilesAnswered: edges.onFilesAnswered,
      }),
    recoverOutbox: () => recoverOutbox(outbox),
    checkDeadline: () => checkDeadline(watch),
    checkUnconfirmed: () => checkUnconfirmed(watch),
    confirmationsDue() {
      const at = new ConfirmationSends(db).nextDueAt();
      return at !== null && at <= clock.now();
    },
  };
}
