import type { Job } from 'bullmq';
import type { JobDeps } from '../deps.ts';
import type { JobPayloads } from '../queues.ts';
import { recoverWork } from '../recovery.ts';

/** Small chores, each a service's: recovery, DC list, shipment watches, retention, snapshot. */
export function maintenanceProcessor(deps: JobDeps) {
  const { ingestion, shipments, retention, nudges } = deps;
  return async (job: Job<JobPayloads['maintenance']>) => {
    switch (job.data.task) {
      case 'recover':
        return recoverWork(deps, job.data.reason);
      case 'dc-refresh':
        await ingestion.refreshDistributionCentres();
        return { refreshed: true };
      case 'deadline':
        return { overdue: shipments.checkDeadline().length };
      case 'shipments-watch':
        return { named: shipments.checkUnconfirmed() };
      case 'prune':
        return retention.prune();
      case 'snapshot': {
        const stored = await ingestion.readSnapshot();
        if (stored) await nudges.push('snapshot');
        return { stored };
      }
    }
  };
}
