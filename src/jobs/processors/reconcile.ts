import type { Job } from 'bullmq';
import { readWhileIdle } from '../../sync/readWhileIdle.ts';
import { startRead } from '../../sync/reconcile.ts';
import type { JobDeps } from '../deps.ts';
import type { JobPayloads } from '../queues.ts';

/**
 * The reconciliation lane. A RECONCILE_CRON tick starts a full pass of both kinds; then, and on
 * every other nudge, the lane reads page by page what is due (passes in progress, and new passes
 * once RECONCILE_MIN_INTERVAL_MS has passed), stopping between pages as soon as a push is due —
 * the push's end asks for the lane again — and asking for a push when a pass found differences.
 * With nothing due it asks to be woken when the next pass is.
 */
export function reconcileProcessor(deps: JobDeps) {
  return async (job: Job<JobPayloads['reconcile']>) => {
    const now = deps.clock.now();
    if (job.data.slot !== undefined) {
      deps.log.info(
        { event: 'reconcile.started', reason: job.data.reason, slot: job.data.slot },
        'full reconciliation started',
      );
      for (const kind of ['factory', 'dc'] as const) startRead(deps.db, kind, now, 'schedule');
    }
    const outcome = await readWhileIdle({
      ...deps,
      intervalMs: deps.config.reconcileMinIntervalMs,
      pushDue: deps.pushDue,
      onDifferences: async () => {
        await deps.nudges.push('reconcile');
      },
    });
    if (outcome.stopped === 'push') {
      deps.log.debug(
        { event: 'reconcile.yielded', pages: outcome.pages },
        'reading stops for a push; it resumes after it',
      );
    }
    if (outcome.stopped === 'wait' && outcome.until !== null) {
      await deps.nudges.reconcileAt(outcome.until, 'interval');
    }
    return outcome;
  };
}
