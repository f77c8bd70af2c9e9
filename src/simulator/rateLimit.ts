/**
 * Rate-limit windows: pure arithmetic over a time the caller passes in (no clock inside), so tests
 * move time by passing other numbers.
 *
 * - fixed: the window is the aligned clock hour [floor(now / 1h) · 1h, +1h); the count resets at
 *   the top of every hour.
 * - sliding: the window is the last 3600 s; a request is allowed when fewer than `limit` requests
 *   were taken in (now − 1h, now].
 */

export type RateWindowKind = 'fixed' | 'sliding';

export const HOUR_MS = 3_600_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this decision. */
  remaining: number;
  /** ms since the epoch when the next request will be allowed again (for a denied one) or the window resets. */
  resetAt: number;
}

export interface RateWindow {
  /** Takes one unit when one is left. */
  take(now: number): RateDecision;
  /** The state without taking anything. */
  peek(now: number): RateDecision;
}

export function createRateWindow(
  kind: RateWindowKind,
  limit: number,
  windowMs = HOUR_MS,
): RateWindow {
  return kind === 'fixed' ? new FixedWindow(limit, windowMs) : new SlidingWindow(limit, windowMs);
}

export class FixedWindow implements RateWindow {
  readonly #limit: number;
  readonly #windowMs: number;
  #windowStart = Number.NEGATIVE_INFINITY;
  #used = 0;

  constructor(limit: number, windowMs = HOUR_MS) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  #roll(now: number): void {
    const start = Math.floor(now / this.#windowMs) * this.#windowMs;
    if (start !== this.#windowStart) {
      this.#windowStart = start;
      this.#used = 0;
    }
  }

  peek(now: number): RateDecision {
    this.#roll(now);
    return {
      allowed: this.#used < this.#limit,
      limit: this.#limit,
      remaining: this.#limit - this.#used,
      resetAt: this.#windowStart + this.#windowMs,
    };
  }

  take(now: number): RateDecision {
    const state = this.peek(now);
    if (!state.allowed) return state;
    this.#used++;
    return { ...state, remaining: this.#limit - this.#used };
  }
}

export class SlidingWindow implements RateWindow {
  readonly #limit: number;
  readonly #windowMs: number;
  /** Times of the requests still inside the window, oldest first, from #head on. */
  #times: number[] = [];
  #head = 0;

  constructor(limit: number, windowMs = HOUR_MS) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  #evict(now: number): void {
    const cutoff = now - this.#windowMs;
    while (this.#head < this.#times.length && this.#times[this.#head]! <= cutoff) this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#times.length) {
      this.#times = this.#times.slice(this.#head);
      this.#head = 0;
    }
  }

  peek(now: number): RateDecision {
    this.#evict(now);
    const used = this.#times.length - this.#head;
    const oldest = this.#times[this.#head];
    return {
      allowed: used < this.#limit,
      limit: this.#limit,
      remaining: Math.max(0, this.#limit - used),
      resetAt: oldest === undefined ? now : oldest + this.#windowMs,
    };
  }

  take(now: number): RateDecision {
    const state = this.peek(now);
    if (!state.allowed) return state;
    this.#times.push(now);
    return { ...this.peek(now), allowed: true };
  }
}
