import type { Job } from 'bullmq';
import type { JobDeps } from '../deps.ts';
import type { JobPayloads } from '../queues.ts';

/** Pushes the pending stock differences (the stock sync says what, and whether paused). */
export function pushProcessor({ stock }: JobDeps) {
  return (job: Job<JobPayloads['push']>) => stock.push(job.data.reason);
}

/**
 * Wakes the reading lane after a push has ended (startWorkers' `afterJob`: once the job has left
 * the active state). Reading stopped for the push, or is due: it goes on now; if its next pass is
 * not due yet, its timer is set (nobody else would wake it before the periodic recovery). Woken
 * from inside the push job, the lane found the push still active, stopped again for it, and
 * waited for the 30 s recovery.
 */
export function afterPush({ stock, nudges }: JobDeps) {
  return async () => {
    const step = stock.nextRead();
    if (step.action === 'read') await nudges.reconcile('after push');
    else if (step.until !== null) await nudges.reconcileAt(step.until, 'after push');
  };
}
