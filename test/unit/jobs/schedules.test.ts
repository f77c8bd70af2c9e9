import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClockWatch } from '../../../src/domain/clockWatch.ts';
import { type Schedules, slotOf, startSchedules } from '../../../src/jobs/schedules.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { LineWatch } from '../../helpers/logLines.ts';

const DAY = 86_400_000;

/**
 * The planner's timers and clocks are vitest's fake ones: time passes only as the test moves it
 * on (advanceUntil), in steps of 20 ms, so that a second of the planner's time costs next to
 * nothing. The fake Date.now() stands for the monotonic clock (it moves only as time passes).
 */
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The most fake time a test waits for what it expects: more than any slot here is apart. */
const PATIENCE_MS = 15_000;

/**
 * Moves fake time on, 20 ms at a time, until `done()` holds; fails once PATIENCE_MS of it have
 * passed without.
 */
async function advanceUntil(done: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !done(); waited += 20) {
    if (waited >= PATIENCE_MS) throw new Error(`${PATIENCE_MS} ms passed waiting for ${what}`);
    await vi.advanceTimersByTimeAsync(20);
  }
}

/**
 * A planner over a wall clock the test sets (the fake clock plus an offset) and a monotonic clock
 * that only time passing moves, looking every 20 ms; its ticks are kept with the wall clock when
 * they came.
 */
function planner(expression: string, onTick?: (slot: string | undefined) => Promise<unknown>) {
  let offset = 0;
  const wall = { now: () => Date.now() + offset };
  const monotonic = () => Date.now();
  const lines = new LineWatch();
  const log = createLogger({
    level: 'debug',
    pretty: false,
    destination: {
      write: (chunk: string) => lines.push(chunk.replace(/\n$/, '')),
    } as unknown as NodeJS.WritableStream,
  });
  const ticks: Array<{ slot: string | undefined; at: number }> = [];
  const schedules = startSchedules(
    [
      {
        name: 'poll',
        expression,
        onTick: async (slot) => {
          ticks.push({ slot, at: wall.now() });
          await onTick?.(slot);
        },
      },
    ],
    { timezone: 'UTC', log, watch: new ClockWatch(wall, monotonic), stepMs: 20 },
  );
  running.push(schedules);
  return {
    ticks,
    lines,
    schedules,
    /** Sets the wall clock `ms` on (back, when negative); returns the wall clock then. */
    setClock(ms: number) {
      offset += ms;
      return wall.now();
    },
    async nextTicks(n: number) {
      const seen = ticks.length;
      await advanceUntil(() => ticks.length >= seen + n, `${n} more tick(s)`);
      return ticks.slice(seen, seen + n);
    },
    /** The first log line with this event, already logged or coming, as fake time passes. */
    async event(event: string) {
      await advanceUntil(() => lines.lines.some((l) => l.event === event), event);
      return lines.waitForEvent(event);
    },
  };
}

const running: Schedules[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

const slotMs = (slot: string | undefined) => Date.parse(`${slot}Z`);

describe('the planner', () => {
  it('asks for each slot once, named by its time to the second', async () => {
    const p = planner('* * * * * *');
    const [a, b] = await p.nextTicks(2);
    expect(a!.slot).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(slotMs(b!.slot) - slotMs(a!.slot)).toBe(1000);
    expect(a!.at).toBeGreaterThanOrEqual(slotMs(a!.slot));
  });

  it('after the clock moved back a day, asks for the first slot after it: within one interval', async () => {
    const p = planner('*/2 * * * * *');
    const [before] = await p.nextTicks(1);
    const setAt = p.setClock(-DAY);
    const [after] = await p.nextTicks(1);
    // The slot after the clock was set, not one a day later; by its own job id (a day back, no
    // job of this planner can hold it).
    expect(slotMs(after!.slot)).toBeGreaterThan(setAt - 1000);
    expect(slotMs(after!.slot)).toBeLessThanOrEqual(setAt + 2000);
    expect(slotMs(before!.slot) - slotMs(after!.slot)).toBeGreaterThan(DAY - 4000);
    const replanned = await p.event('schedule.replanned');
    expect(slotMs(replanned.was as string)).toBeGreaterThan(slotMs(replanned.next as string));
  });

  it('asks again for a slot it asked for already without its job id (the id may be taken)', async () => {
    const p = planner('* * * * * *');
    const [last] = await p.nextTicks(1);
    p.setClock(-10_000);
    const [again] = await p.nextTicks(1);
    expect(again!.slot).toBeUndefined();
    expect(again!.at).toBeLessThan(slotMs(last!.slot));
  });

  it('after the clock jumped forward an hour, asks once for what it missed, then goes on', async () => {
    const p = planner('* * * * * *');
    const [last] = await p.nextTicks(1);
    const setAt = p.setClock(3_600_000);
    const [missed, next] = await p.nextTicks(2);
    expect(slotMs(missed!.slot)).toBe(slotMs(last!.slot) + 1000);
    expect(slotMs(next!.slot)).toBeGreaterThan(setAt - 1000);
    expect(slotMs(next!.slot)).toBeLessThanOrEqual(setAt + 1000);
  });

  it('skips a tick while the one before still runs, and goes on after one that failed', async () => {
    let release: () => void = () => {};
    let calls = 0;
    const p = planner('* * * * * *', (slot) => {
      calls++;
      if (calls === 1) return new Promise<void>((r) => (release = r));
      if (calls === 2) return Promise.reject(new Error('Redis away'));
      return Promise.resolve(slot);
    });
    const skipped = await p.event('schedule.skipped');
    expect(p.ticks).toHaveLength(1);
    expect(skipped.level).toBe('debug');
    release();
    const failed = await p.event('schedule.failed');
    expect(failed.schedule).toBe('poll');
    await p.nextTicks(1);
  });

  it('does a schedule out of turn on run(), without a slot; an unknown name is an error', async () => {
    const p = planner('0 0 1 1 *');
    await p.schedules.run('poll');
    expect(p.ticks.map((t) => t.slot)).toEqual([undefined]);
    await expect(p.schedules.run('nothing')).rejects.toThrow(/no schedule named nothing/);
  });
});

describe('a slot', () => {
  it('is the scheduled instant in UTC, to the second', () => {
    expect(slotOf(new Date(Date.UTC(2026, 10, 29, 3, 17, 0, 400)))).toBe('2026-11-29T03:17:00');
  });
});
