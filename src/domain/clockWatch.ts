import type { Clock } from './clock.ts';

/**
 * A wall clock that differs by more than this from the time that really passed (by a monotonic
 * clock) between two looks is a jump: an NTP step, an operator setting the date, a virtual
 * machine resumed. Smaller steps are the clock being corrected as usual.
 */
export const CLOCK_JUMP_MS = 30_000;

export interface ClockJump {
  /** How far the wall clock moved beyond the time that passed; positive: forward. */
  readonly jumpMs: number;
  /** The wall clock when the jump was noticed (epoch ms). */
  readonly at: number;
  /** The wall clock at the look before (epoch ms). */
  readonly before: number;
  /** Time that really passed between the two looks, by the monotonic clock (ms). */
  readonly elapsedMs: number;
}

export type ClockJumpListener = (jump: ClockJump) => void;

/** The monotonic clock of this process (ms): never set, never jumps. */
export const processMonotonic = (): number => performance.now();

/**
 * Time has two clocks: the wall clock says *when* (cron slots, "today", deadlines, stamps that
 * outlive a run) and a monotonic clock says *how long*. This watch reads the wall clock and, at
 * every look, compares how far it moved with how far the monotonic one did: a difference of more
 * than `thresholdMs` is a jump, told to every listener before the look returns. Listeners must
 * not throw. Those who plan by the wall clock (the schedules) look at least every few seconds.
 */
export class ClockWatch {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #monotonic: () => number;
  readonly #thresholdMs: number;
  readonly #listeners = new Set<ClockJumpListener>();
  #wall: number;
  #mono: number;

  constructor(
    clock: Pick<Clock, 'now'>,
    monotonic: () => number = processMonotonic,
    thresholdMs = CLOCK_JUMP_MS,
  ) {
    this.#clock = clock;
    this.#monotonic = monotonic;
    this.#thresholdMs = thresholdMs;
    this.#wall = clock.now();
    this.#mono = monotonic();
  }

  /** The wall clock now (epoch ms), once a jump since the last look has been told. */
  now(): number {
    const wall = this.#clock.now();
    const mono = this.#monotonic();
    const elapsedMs = mono - this.#mono;
    const jumpMs = Math.round(wall - this.#wall - elapsedMs);
    const before = this.#wall;
    this.#wall = wall;
    this.#mono = mono;
    if (Math.abs(jumpMs) > this.#thresholdMs) {
      const jump: ClockJump = { jumpMs, at: wall, before, elapsedMs };
      for (const listener of this.#listeners) listener(jump);
    }
    return wall;
  }

  /** The monotonic clock (ms): for those who compare the two on their own. */
  monotonic(): number {
    return this.#monotonic();
  }

  /** Tells `listener` of every jump from now on; returns what stops that. */
  onJump(listener: ClockJumpListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
