import type { Job } from 'bullmq';
import type { JobDeps } from '../deps.ts';
import { creationsDue, type JobPayloads, pushDue } from '../queues.ts';

/**
 * The reconciliation lane. A RECONCILE_CRON tick (a `slot`) starts a full pass of both kinds;
 * then, and on every other nudge, the stock sync reads page by page what is due, stopping between
 * pages as soon as a push runs or waits to run, or product work does (also while the products
 * lane is spent: reading never takes calls it waits for) — the push's end asks for the lane
 * again, and the 30 s recovery after product work — and a
 * pass that found differences asks for a push. With nothing due, the lane asks to be woken when
 * the next pass is. A spent share of the budget ends the job quietly: the periodic recovery (every
 * 30 s) sets the lane going again, so it reads what freed in short bursts rather than a call at a
 * time.
 */
export function reconcileProcessor({ stock, nudges, queues }: JobDeps) {
  return async (job: Job<JobPayloads['reconcile']>) => {
    const outcome = await stock.read({
      slot: job.data.slot,
      reason: job.data.reason,
      // Pushes and product creations go before reading: it stops between pages for either.
      pushDue: async () => (await pushDue(queues)) || (await creationsDue(queues)),
      onDifferences: async () => {
        await nudges.push('reconcile');
      },
    });
    if (outcome.stopped === 'wait' && outcome.until !== null) {
      await nudges.reconcileAt(outcome.until, 'interval');
    }
    return outcome;
  };
}
