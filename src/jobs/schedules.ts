import { type CronSlots, cronSlots } from '../config/cronExpression.ts';
import type { ClockWatch } from '../domain/clockWatch.ts';
import type { Logger } from '../log/logger.ts';
import { FINISHED_KEPT_MS } from './queues.ts';

export interface Schedule {
  readonly name: string;
  readonly expression: string;
  /**
   * Called at each tick with the slot: the scheduled time to the second, the same in every daemon.
   * Without a slot when the work is asked for out of turn (Schedules.run), or when the slot is at
   * or within an hour before one this planner asked for already (the clock went back): then it is
   * deduplicated like any other nudge, not by slot.
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

/** The longest the planner sleeps between two looks at the clocks, in ms. */
export const PLANNER_STEP_MS = 5_000;
/** The wall clock moved this much less than the monotonic one since the last look: it went back. */
const WENT_BACK_MS = 1000;

interface Planned {
  readonly schedule: Schedule;
  readonly slots: CronSlots;
  /** The next slot (epoch ms, wall clock); null: the expression has no more. */
  next: number | null;
  /** The latest slot asked for by this planner. */
  lastSlot: number;
  running: boolean;
}

export interface ScheduleOptions {
  /** SYNC_TIMEZONE: the zone the expressions' slots are in. */
  readonly timezone: string;
  readonly log: Logger;
  /** The wall clock, watched against the monotonic one (a jump is noticed at a look). */
  readonly watch: ClockWatch;
  /** The longest sleep between two looks (PLANNER_STEP_MS unless a test says). */
  readonly stepMs?: number;
}

/**
 * The daemon's planner. Slots are wall-clock times in SYNC_TIMEZONE, found by a pure "next slot
 * after t" (cronSlots); the planner sleeps until the earliest next slot, but never longer than
 * `stepMs`, and at each wake looks at the clock again:
 *
 * - a slot that has come is asked for once, however many were missed (a clock that jumped
 *   forward, a process that was stopped), and the next is the first after now;
 * - a next slot later than the first after now means the clock went back (by any amount): the
 *   first after now replaces it, so every schedule still runs within one of its intervals of
 *   real time. Its slot's job id may still be taken in Redis (finished jobs are kept an hour), so
 *   a slot at or up to an hour before one already asked for is asked for without one (slots
 *   further back: BullMQ's jobs that finished ahead of the clock are removed when the jump is
 *   noticed, jobs/timers.ts).
 *
 * A tick only enqueues (its job id derived from the slot), so two daemons sharing a Redis never
 * double it; a tick still running when the next comes is skipped; a tick that fails is logged and
 * the next one tries again.
 */
export function startSchedules(list: readonly Schedule[], options: ScheduleOptions): Schedules {
  const { log, watch } = options;
  const stepMs = options.stepMs ?? PLANNER_STEP_MS;
  const start = watch.now();
  const planned: Planned[] = list.map((schedule) => {
    const slots = cronSlots(schedule.expression, options.timezone);
    return {
      schedule,
      slots,
      next: slots.next(start),
      lastSlot: Number.NEGATIVE_INFINITY,
      running: false,
    };
  });
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let last = { wall: start, mono: watch.monotonic() };

  const tick = (p: Planned, slotAt: number) => {
    const slot = slotOf(new Date(slotAt));
    const name = p.schedule.name;
    const again = slotAt <= p.lastSlot && slotAt > p.lastSlot - FINISHED_KEPT_MS;
    p.lastSlot = Math.max(p.lastSlot, slotAt);
    // Our own overlap guard: during a Redis outage ticks wait on the queue.
    if (p.running) {
      log.debug({ event: 'schedule.skipped', schedule: name, slot }, 'previous tick still running');
      return;
    }
    p.running = true;
    Promise.resolve()
      .then(() => p.schedule.onTick(again ? undefined : slot))
      .catch((err: unknown) =>
        log.warn({ event: 'schedule.failed', schedule: name, slot, err }, `${name} tick failed`),
      )
      .finally(() => {
        p.running = false;
      });
  };

  const look = () => {
    if (stopped) return;
    const mono = watch.monotonic();
    const now = watch.now();
    // A planned slot can lie beyond the first after now only if the clock went back since the
    // last look: only then, and for the slots that came, is the next worked out (about 100 us a
    // schedule), so that looks of a clock that keeps time cost next to nothing.
    const wentBack = now - last.wall < mono - last.mono - WENT_BACK_MS;
    last = { wall: now, mono };
    let wake = now + stepMs;
    for (const p of planned) {
      if (p.next === null) continue;
      const first = wentBack || p.next <= now ? p.slots.next(now) : p.next;
      if (p.next > now && first !== null && first < p.next) {
        log.debug(
          {
            event: 'schedule.replanned',
            schedule: p.schedule.name,
            was: slotOf(new Date(p.next)),
            next: slotOf(new Date(first)),
          },
          `${p.schedule.name}: the clock went back, next slot brought forward`,
        );
        p.next = first;
      }
      if (p.next <= now) {
        tick(p, p.next);
        p.next = first;
      }
      if (p.next !== null) wake = Math.min(wake, p.next);
    }
    timer = setTimeout(look, Math.max(1, wake - now));
    timer.unref();
  };
  look();

  return {
    async run(name) {
      const s = list.find((x) => x.name === name);
      if (s === undefined) throw new Error(`no schedule named ${name}`);
      await s.onTick(undefined);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** A schedule slot: the scheduled instant, to the second, in UTC. */
export function slotOf(date: Date): string {
  return date.toISOString().slice(0, 19);
}
