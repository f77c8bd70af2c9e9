import { effectiveReserve, HOUR_MS } from './decide.ts';

export interface CallsDoneInput {
  /** Times (epoch ms) of the calls already made; order does not matter, old ones are ignored. */
  readonly calls: readonly number[];
  /** Calls allowed in any rolling window. */
  readonly limit: number;
  /** Calls the lane leaves unspent. */
  readonly reserve: number;
  readonly now: number;
  /** Calls still to make. */
  readonly needed: number;
  readonly windowMs?: number;
}

/**
 * When the last of `needed` more calls of a lane can go, if the lane sends them as fast as its
 * share of the rolling window allows (pure; null when nothing is needed). Every call, old or new,
 * must find fewer than `limit − reserve` calls in the window before it, so the i-th call overall
 * waits for the (i − allowance)-th to leave the window. Other lanes' future calls and the
 * portal's own hint are not foreseen: it is the budget's answer, not a promise.
 */
export function whenCallsDone(input: CallsDoneInput): number | null {
  const { now, needed, windowMs = HOUR_MS } = input;
  if (needed <= 0) return null;
  const allowance = input.limit - effectiveReserve(input.limit, input.reserve);
  const all = input.calls.filter((t) => t > now - windowMs).sort((a, b) => a - b);
  let at = now;
  for (let j = 0; j < needed; j++) {
    const i = all.length;
    const blocker = i >= allowance ? all[i - allowance]! + windowMs : now;
    at = Math.max(at, blocker);
    all.push(at);
  }
  return at;
}
