import type { Job } from 'bullmq';
import { KeyValueStore } from '../../state/kv.ts';
import { establishRemote } from '../../sync/establish.ts';
import { pushPending } from '../../sync/push.ts';
import { nextReconcileStep } from '../../sync/readWhileIdle.ts';
import type { JobDeps } from '../deps.ts';
import type { JobPayloads } from '../queues.ts';

/**
 * Wakes the reading lane after a push has ended (startWorkers' `afterJob`: once the job has left
 * the active state). Reading stopped for the push, or is due: it goes on now; if its next pass is
 * not due yet, its timer is set (nobody else would wake it before the periodic recovery). Woken
 * from inside the push job, the lane found the push still active, stopped again for it, and
 * waited for the 30 s recovery.
 */
export function afterPush(deps: JobDeps) {
  return async () => {
    const step = nextReconcileStep(deps.db, deps.clock.now(), deps.config.reconcileMinIntervalMs);
    if (step.action === 'read') await deps.nudges.reconcile('after push');
    else if (step.until !== null) await deps.nudges.reconcileAt(step.until, 'after push');
  };
}

/**
 * Pushes pending stock differences (learning the portal's stock first on a first start). Not
 * while pushes are paused (`pause`): the differences stay pending until `resume` asks again; a
 * pause during a push stops it after the batch in flight.
 */
export function pushProcessor(deps: JobDeps) {
  return async (job: Job<JobPayloads['push']>) => {
    const kv = new KeyValueStore(deps.db);
    const paused = () => kv.get('sync.paused') !== undefined;
    if (paused()) {
      deps.log.debug(
        { event: 'sync.push_paused', reason: job.data.reason },
        'push not done: pushes are paused',
      );
      return { calls: 0, sent: 0, updated: 0, failed: 0 };
    }
    const started = deps.clock.now();
    try {
      await establishRemote({ ...deps, mayDecide: deps.startFilesApplied });
      const totals = await pushPending({ ...deps, paused });
      if (totals.calls > 0) {
        deps.log.info(
          {
            event: 'sync.pushed',
            reason: job.data.reason,
            ...totals,
            ms: deps.clock.now() - started,
          },
          `push done: ${totals.updated} updated, ${totals.failed} failed in ${totals.calls} calls`,
        );
      }
      kv.set('last.push', { at: deps.clock.now(), outcome: 'ok', ...totals });
      if (totals.calls > 0 || totals.failed > 0) kv.set('last.push_success', deps.clock.now());
      return totals;
    } catch (err) {
      kv.set('last.push', {
        at: deps.clock.now(),
        outcome: 'error',
        error: err instanceof Error ? err.message : String(err),
      });
      throw err;
    }
  };
}
