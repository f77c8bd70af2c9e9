/**
 * The daemon's stock lanes in virtual time, for the economy benchmark's drift figures: the sync
 * engine itself (pushPending, readWhileIdle, the real budget in state.db, a real PortalClient over
 * HTTP to the simulator), with the queues' part — when each runs — played by a small loop that
 * follows the daemon's rules, and time that skips ahead whenever the daemon would wait.
 */

import type { StockReader, StockWriter } from '../../src/api/index.ts';
import type { Clock } from '../../src/domain/clock.ts';
import type { RetrySettings } from '../../src/domain/retrySchedule.ts';
import { failurePolicy } from '../../src/failures/failurePolicy.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { StateDb } from '../../src/state/db.ts';
import { PendingStock } from '../../src/state/stock/pendingStock.ts';
import { pushPending } from '../../src/sync/push.ts';
import { readWhileIdle } from '../../src/sync/readWhileIdle.ts';

/**
 * Real time that skips ahead: every call takes the time it really takes, and every wait (a spent
 * budget, the next pass's due time) is skipped by moving the clock. The simulator is given
 * `now` so that its rate window and cursors see the same time.
 */
export class SkipClock implements Clock {
  #offset = 0;
  readonly now = (): number => Date.now() + this.#offset;
  readonly sleep = async (ms: number): Promise<void> => {
    this.#offset += Math.max(0, ms);
  };
  advanceTo(t: number): void {
    const d = t - this.now();
    if (d > 0) this.#offset += d;
  }
}

/** The daemon's periodic recovery, which asks for a push of any pending key. */
const RECOVER_TICK_MS = 30_000;

export interface LaneRig {
  readonly db: StateDb;
  readonly reader: StockReader;
  readonly writer: StockWriter;
  readonly clock: SkipClock;
  readonly log: Logger;
  readonly retry: RetrySettings;
  /** RECONCILE_MIN_INTERVAL_MS. */
  readonly intervalMs: number;
}

/**
 * Runs the lanes until `until` (virtual epoch ms) or `done()`: a push goes when a pass ended with
 * differences (the reconcile job asks for one) or at the next 30 s recovery tick with keys
 * pending, and reading stops for it between pages; otherwise the reconciliation lane reads as
 * readWhileIdle decides. A spent budget moves the clock to when a slot frees, as the paused queue
 * would wait. `afterPush` runs after every push (the benchmark checks what it repaired).
 */
export async function runLanes(
  rig: LaneRig,
  until: number,
  hooks: { done?: () => boolean; afterPush?: () => void; askPush?: boolean } = {},
): Promise<void> {
  const pending = new PendingStock(rig.db);
  const tick = () => Math.floor(rig.clock.now() / RECOVER_TICK_MS);
  let asked = hooks.askPush ?? false;
  let lastTick = tick();
  const anyPending = () => {
    const c = pending.counts();
    return c.factory + c.dc > 0;
  };
  const pushDue = async () => anyPending() && (asked || tick() > lastTick);
  while (rig.clock.now() < until && !hooks.done?.()) {
    try {
      if (await pushDue()) {
        asked = false;
        lastTick = tick();
        try {
          await pushPending(rig);
        } catch (err) {
          // The push job waits (its queue paused) and runs again once a slot frees.
          asked = true;
          throw err;
        }
        hooks.afterPush?.();
        continue;
      }
      let outcome: Awaited<ReturnType<typeof readWhileIdle>>;
      try {
        outcome = await readWhileIdle({
          ...rig,
          pushDue,
          onDifferences: async () => {
            asked = true;
          },
        });
      } catch (err) {
        const action = failurePolicy(err);
        if (action.kind !== 'wait') throw err;
        // As the reconcile job: it ends, and the next 30 s recovery tick after calls free sets
        // it going again.
        const freed = Math.ceil(action.until / RECOVER_TICK_MS) * RECOVER_TICK_MS;
        const nextTick = anyPending() ? (tick() + 1) * RECOVER_TICK_MS : Number.POSITIVE_INFINITY;
        rig.clock.advanceTo(Math.min(freed, nextTick, until));
        continue;
      }
      if (outcome.stopped === 'wait') {
        // Nothing to read before `until`; pending keys go at the next tick.
        const nextTick = anyPending() ? (tick() + 1) * RECOVER_TICK_MS : Number.POSITIVE_INFINITY;
        rig.clock.advanceTo(Math.min(outcome.until ?? until, nextTick, until));
      }
    } catch (err) {
      const action = failurePolicy(err);
      if (action.kind !== 'wait') throw err;
      // The push waits for a slot: nothing runs before it frees (reading's share is smaller).
      rig.clock.advanceTo(Math.min(action.until, until));
    }
  }
}
