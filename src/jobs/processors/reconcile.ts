import type { Job } from 'bullmq';
import { reconcileAll } from '../../sync/reconcile.ts';
import type { JobDeps } from '../deps.ts';
import type { JobPayloads } from '../queues.ts';

/** Reads the portal's stock into the known remote state, then asks for a push of any drift. */
export function reconcileProcessor(deps: JobDeps) {
  return async (job: Job<JobPayloads['reconcile']>) => {
    deps.log.info(
      { event: 'reconcile.started', reason: job.data.reason, slot: job.data.slot },
      'reconciliation started',
    );
    const summaries = await reconcileAll({ ...deps });
    if (summaries.some((s) => s.differences > 0 || s.unknownToPortal > 0))
      await deps.nudges.push('reconcile');
    return summaries;
  };
}
