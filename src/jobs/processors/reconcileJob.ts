import type { Job } from 'bullmq';
import { failurePolicy } from '../../failures/failurePolicy.ts';
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
 *
 * Reading is meant to spend the lane's whole share, so its budget running out is the steady
 * state, not news: the job then ends (logged at debug) instead of pausing its queue with a
 * `queue.paused` line each time, and the periodic recovery (every 30 s) sets the lane going
 * again, so it reads what freed in short bursts rather than a call at a time.
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
    let outcome: Awaited<ReturnType<typeof readWhileIdle>>;
    try {
      outcome = await readWhileIdle({
        ...deps,
        intervalMs: deps.config.reconcileMinIntervalMs,
        pushDue: deps.pushDue,
        onDifferences: async () => {
          await deps.nudges.push('reconcile');
        },
      });
    } catch (err) {
      const action = failurePolicy(err);
      if (action.kind !== 'wait' || action.holds !== 'budget') throw err;
      deps.log.debug(
        { event: 'reconcile.budget_wait', freesAt: new Date(action.until).toISOString() },
        'reading has spent its share of the budget; it goes on when calls free',
      );
      return { pages: 0, stopped: 'budget', until: action.until };
    }
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
