import { describe, expect, it } from 'vitest';
import { CLOCK_JUMP_MS, type ClockJump, ClockWatch } from '../../../src/domain/clockWatch.ts';

/** A wall clock and a monotonic one the test moves by hand. */
function clocks(start = Date.UTC(2026, 0, 1)) {
  const t = { wall: start, mono: 1000 };
  return {
    t,
    /** Time passes: both move. */
    pass(ms: number) {
      t.wall += ms;
      t.mono += ms;
    },
    /** The wall clock is set: only it moves. */
    set(ms: number) {
      t.wall += ms;
    },
    watch: () => new ClockWatch({ now: () => t.wall }, () => t.mono),
  };
}

describe('a watch on the wall clock against the monotonic one', () => {
  it('tells a jump back and a jump forward, signed, when it looks next', () => {
    const c = clocks();
    const watch = c.watch();
    const told: ClockJump[] = [];
    watch.onJump((j) => told.push(j));
    c.pass(5000);
    expect(watch.now()).toBe(c.t.wall);
    c.set(-86_400_000);
    c.pass(1000);
    expect(told).toEqual([]);
    const now = watch.now();
    expect(told).toEqual([
      { jumpMs: -86_400_000, at: now, before: now + 86_400_000 - 1000, elapsedMs: 1000 },
    ]);
    c.set(3_600_000);
    watch.now();
    expect(told.map((j) => j.jumpMs)).toEqual([-86_400_000, 3_600_000]);
  });

  it('takes a step of the clock within CLOCK_JUMP_MS, or a long wait, for no jump', () => {
    const c = clocks();
    const watch = c.watch();
    const told: ClockJump[] = [];
    watch.onJump((j) => told.push(j));
    c.set(-(CLOCK_JUMP_MS - 1));
    watch.now();
    c.set(CLOCK_JUMP_MS);
    watch.now();
    c.pass(7 * 86_400_000);
    watch.now();
    expect(told).toEqual([]);
  });

  it('stops telling a listener that was taken off', () => {
    const c = clocks();
    const watch = c.watch();
    const told: number[] = [];
    const off = watch.onJump((j) => told.push(j.jumpMs));
    c.set(-60_000);
    watch.now();
    off();
    c.set(-60_000);
    watch.now();
    expect(told).toEqual([-60_000]);
  });
});
