/**
 * The back-off schedule, pure: the same inputs give the same wait (pass `random` to fix jitter).
 */
export interface BackoffOptions {
  /** First wait, in ms; it doubles with each further attempt. */
  readonly base: number;
  /** Longest wait of our own, in ms (a Retry-After is not capped: the server knows best). */
  readonly max: number;
  /**
   * Share of the wait that is randomised, 0..1: the wait lies in [d·(1 − jitter), d]. 0 for the
   * spec's exact 429 schedule (1 s, 2 s, 4 s …); about 0.5 for 5xx and network errors so many
   * clients do not retry in step.
   */
  readonly jitter?: number;
  /** What the server asked for (Retry-After), in ms; the wait is never shorter. */
  readonly retryAfter?: number | undefined;
  /** Source of randomness in [0, 1); Math.random by default. */
  readonly random?: () => number;
}

/** Wait before retry number `attempt` (1 for the first retry), in whole ms. */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const { base, max, jitter = 0, retryAfter, random = Math.random } = options;
  const n = Math.max(1, Math.floor(attempt));
  // 2 ** n overflows to Infinity for huge n; Math.min keeps it finite.
  const exponential = Math.min(max, base * 2 ** (n - 1));
  const share = Math.min(1, Math.max(0, jitter));
  const jittered = exponential - exponential * share * random();
  const own = Math.min(max, jittered);
  return Math.max(0, Math.round(retryAfter === undefined ? own : Math.max(own, retryAfter)));
}

/**
 * The Retry-After header in ms from `now`: either delay-seconds or an HTTP date. Undefined when
 * absent or unreadable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP date names its month; anything else (a negative number, garbage) is unreadable.
  const at = /[a-z]{3}/i.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
