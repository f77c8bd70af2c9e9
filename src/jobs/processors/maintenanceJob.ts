import type { Job } from 'bullmq';
import { checkDeadline, checkUnconfirmed, type ShipmentWatchDeps } from '../../shipments/watch.ts';
import { ConfirmationSends } from '../../state/shipments/confirmationSends.ts';
import { PendingStock } from '../../state/stock/pendingStock.ts';
import { StockFailures } from '../../state/stock/stockFailures.ts';
import { nextReconcileStep } from '../../sync/readWhileIdle.ts';
import type { JobDeps } from '../deps.ts';
import type { JobPayloads } from '../queues.ts';
import { pruneRetained } from './retentionJob.ts';

/**
 * Re-derives work from state.db — failures whose next attempt is due, pending differences,
 * confirmations due — and asks for it; so a Redis that lost every job costs a minute at most.
 */
export async function recoverWork(
  deps: Pick<JobDeps, 'db' | 'clock' | 'nudges' | 'log' | 'config'>,
  reason: string,
) {
  const now = deps.clock.now();
  const due = new StockFailures(deps.db).markDuePending(now);
  const pending = new PendingStock(deps.db).counts();
  const confirmAt = new ConfirmationSends(deps.db).nextDueAt();
  const reading = nextReconcileStep(deps.db, now, deps.config.reconcileMinIntervalMs);
  if (pending.factory + pending.dc > 0) await deps.nudges.push(reason);
  if (confirmAt !== null && confirmAt <= now) await deps.nudges.confirm(reason);
  // Pushes first: with pending keys, the push's end asks for the reading.
  if (reading.action === 'read' && pending.factory + pending.dc === 0) {
    await deps.nudges.reconcile(reason);
  }
  return {
    failuresDue: due,
    pending,
    confirmationsDue: confirmAt !== null && confirmAt <= now,
    reading: reading.action === 'read',
  };
}

function shipmentWatchDeps(deps: JobDeps): ShipmentWatchDeps {
  return {
    db: deps.db,
    log: deps.log,
    clock: deps.clock,
    timezone: deps.config.timezone,
    deadline: deps.config.shipmentsDeadline,
    confirmWarnMs: deps.config.shipmentsConfirmWarnMs,
  };
}

export function maintenanceProcessor(deps: JobDeps) {
  return async (job: Job<JobPayloads['maintenance']>) => {
    switch (job.data.task) {
      case 'recover':
        return recoverWork(deps, job.data.reason);
      case 'dc-refresh':
        await deps.refreshDistributionCentres();
        return { refreshed: true };
      case 'deadline':
        return { overdue: checkDeadline(shipmentWatchDeps(deps)).length };
      case 'shipments-watch':
        return { named: checkUnconfirmed(shipmentWatchDeps(deps)) };
      case 'prune':
        return pruneRetained({
          db: deps.db,
          log: deps.log,
          clock: deps.clock,
          dataDir: deps.config.dataDir,
          retentionDays: deps.config.retentionDays,
        });
      case 'snapshot': {
        const stored = await deps.readSnapshot();
        if (stored) await deps.nudges.push('snapshot');
        return { stored };
      }
    }
  };
}
