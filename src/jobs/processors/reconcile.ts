import type { Job } from 'bullmq';
import { BudgetExhaustedError } from '../../api/errors.ts';
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
 * state, not news: the lane then asks to be woken when calls free (at least a minute later, so it
 * reads in short bursts rather than a call at a time), logged at debug, instead of pausing its
 * queue with a `queue.paused` line each time.
 */
/** The shortest wait of a reading that spent its share: it then reads what freed in a burst. */
export const READ_BURST_GAP_MS = 60_000;

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
      if (!(err instanceof BudgetExhaustedError)) throw err;
      const at = Math.max(err.retryAt, deps.clock.now() + READ_BURST_GAP_MS);
      deps.log.debug(
        { event: 'reconcile.budget_wait', until: new Date(at).toISOString() },
        'reading has spent its share of the budget; it goes on when calls free',
      );
      await deps.nudges.reconcileAt(at, 'budget');
      return { pages: 0, stopped: 'budget', until: at };
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
