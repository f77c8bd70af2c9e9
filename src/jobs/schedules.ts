import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../log/logger.ts';

export interface Schedule {
  readonly name: string;
  readonly expression: string;
  /**
   * Called at each tick with the slot: the scheduled time to the second, the same in every daemon.
   * Without a slot when the work is asked for out of turn (Schedules.run): then it is deduplicated
   * like any other nudge, not by slot.
   */
  readonly onTick: (slot: string | undefined) => Promise<unknown>;
}

export interface Schedules {
  /**
   * Does a schedule's work now, out of turn, as its tick would (a tick only asks for work, so
   * this is cheap and safe at any time); resolves once it has been asked for. Unknown names are
   * an error.
   */
  run(name: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts node-cron triggers. A tick only enqueues (its job id derived from the slot), so two
 * daemons sharing a Redis never double it; a tick that fails is logged and the next one tries again.
 */
export function startSchedules(
  list: readonly Schedule[],
  timezone: string,
  log: Logger,
): Schedules {
  const tasks: ScheduledTask[] = list.map((s) => {
    // Our own overlap guard: node-cron's prints a warning to the console at every skipped tick,
    // which during a Redis outage (ticks wait on the queue) is a stream of lines outside the log.
    let running = false;
    return cron.schedule(
      s.expression,
      async (ctx) => {
        const slot = slotOf(ctx.date);
        if (running) {
          log.debug(
            { event: 'schedule.skipped', schedule: s.name, slot },
            'previous tick still running',
          );
          return;
        }
        running = true;
        try {
          await s.onTick(slot);
        } catch (err) {
          log.warn(
            { event: 'schedule.failed', schedule: s.name, slot, err },
            `${s.name} tick failed`,
          );
        } finally {
          running = false;
        }
      },
      { name: s.name, timezone },
    );
  });
  return {
    async run(name) {
      const s = list.find((x) => x.name === name);
      if (s === undefined) throw new Error(`no schedule named ${name}`);
      await s.onTick(undefined);
    },
    async stop() {
      await Promise.allSettled(tasks.map(async (t) => t.destroy()));
    },
  };
}

/** A schedule slot: the scheduled instant, to the second, in UTC. */
export function slotOf(date: Date): string {
  return date.toISOString().slice(0, 19);
}
