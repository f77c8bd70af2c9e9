import type { ServerHint } from '../../state/kvKeys.ts';

/**
 * Budget arithmetic, pure: given the times of the calls already made, the hourly limit, the
 * lane's reserve, the time and what the server last said, may one more call go, and if not, when?
 *
 * Two views are combined and the stricter wins:
 * - the client's: fewer than `limit − reserve` calls in the rolling window (now − 1 h, now];
 * - the server's (x-ratelimit-remaining at `hint.at`, minus the calls made since, plus those of
 *   ours that have left the rolling hour since — with a sliding window the server has given them
 *   back; with a fixed one it has reset by then, for every call it counted): more than the lane's
 *   reserve left. Without that, a hint taken while the hour was full kept a lane held by its
 *   reserve waiting for a whole window, until another lane's call brought a fresher count. The server's window alignment is unknown (fixed or sliding, reset time not
 *   shown), so a hint is trusted for at most one window, and once it says nothing is left the next
 *   call is a probe, allowed after a back-off that doubles with each consecutive "0 remaining".
 *   A hint that says calls are left but only the lane's reserve (issue #28: after a portal
 *   restart such a stale count held the stock lane at 0 for minutes) is trusted for
 *   `staleHintMs` without a fresher one; then one call refreshes it.
 */

export const HOUR_MS = 3_600_000;

/**
 * Who is calling: shipment confirmations may spend the whole budget, the others leave a reserve
 * (shipment polls leave one for pushes, so that frequent polls never take every call; product
 * creations leave what polls leave and a share of their own).
 */
export type Lane = 'shipments' | 'poll' | 'operator' | 'stock' | 'products' | 'reconcile';
export const LANES: readonly Lane[] = [
  'shipments',
  'poll',
  'operator',
  'stock',
  'products',
  'reconcile',
];

/** What the server said about its window, and when (persisted in kv so every process sees it). */
export type { ServerHint };

export interface ProbeSchedule {
  /** First wait before probing a server that said 0 remaining, in ms. */
  readonly baseMs: number;
  /** Longest such wait, in ms. */
  readonly maxMs: number;
}

export const DEFAULT_PROBE: ProbeSchedule = { baseMs: 60_000, maxMs: 15 * 60_000 };

export interface CallDecisionInput {
  /**
   * Times (epoch ms) of recorded calls; order does not matter. Those before the window count
   * only for the server hint (calls given back since it), so pass those since `hint.at − window`.
   */
  readonly calls: readonly number[];
  /** Calls allowed in any rolling window. */
  readonly limit: number;
  /** Calls this lane must leave unspent (clamped to limit − 1 so a lane can always progress). */
  readonly reserve: number;
  readonly now: number;
  readonly server?: ServerHint | undefined;
  /** Ignore the server hint (a retry already scheduled by a 429 back-off is its own probe). */
  readonly ignoreServer?: boolean;
  readonly probe?: ProbeSchedule;
  readonly windowMs?: number;
}

export interface CallDecision {
  readonly allowed: boolean;
  /** Epoch ms when this lane may call again; `now` when allowed. */
  readonly retryAt: number;
  /** Calls in the client's window. */
  readonly used: number;
  /** Calls this lane may still make now (before this one), by the stricter view. */
  readonly remaining: number;
  /** Which view decided a refusal. */
  readonly limitedBy: 'client' | 'server' | null;
}

export function effectiveReserve(limit: number, reserve: number): number {
  return Math.max(0, Math.min(Math.floor(reserve), limit - 1));
}

export function probeDelay(zeroStreak: number, probe: ProbeSchedule = DEFAULT_PROBE): number {
  const n = Math.max(1, zeroStreak);
  return Math.min(probe.maxMs, probe.baseMs * 2 ** (n - 1));
}

/**
 * How long a server count that stops a lane only by its reserve is trusted without a fresher
 * one: twice the first probe back-off (2 minutes by default), so a stale count costs the
 * reserve at most one call per that long.
 */
export function staleHintMs(probe: ProbeSchedule = DEFAULT_PROBE): number {
  return 2 * probe.baseMs;
}

export function decideCall(input: CallDecisionInput): CallDecision {
  const { limit, now, server, probe = DEFAULT_PROBE, windowMs = HOUR_MS } = input;
  const since = now - windowMs;
  const inWindow = input.calls.filter((t) => t > since).sort((a, b) => a - b);
  const used = inWindow.length;
  const reserve = effectiveReserve(limit, input.reserve);
  const allowance = limit - reserve;

  const clientLeft = allowance - used;
  // The (used − allowance)-th oldest call is the last of those that must expire for one slot.
  const clientRetryAt = clientLeft > 0 ? now : (inWindow[used - allowance] ?? now) + windowMs;

  let serverLeft = Number.POSITIVE_INFINITY;
  let serverRetryAt = now;
  if (server !== undefined && !input.ignoreServer && now < server.at + windowMs) {
    const madeSince = inWindow.filter((t) => t > server.at);
    // Counted by the server at `hint.at` (within its window then), out of the rolling hour now.
    const givenBack = input.calls.filter((t) => t > server.at - windowMs && t <= since).length;
    const serverLimit = server.limit ?? limit;
    const serverReserve =
      serverLimit < limit ? Math.floor((reserve * serverLimit) / limit) : reserve;
    const serverTotalLeft = server.remaining - madeSince.length + givenBack;
    serverLeft = serverTotalLeft - serverReserve;
    if (serverLeft <= 0 && serverTotalLeft > 0) {
      // Only this lane's reserve stops it: those calls belong to others (shipments). Look again
      // later, when another lane's call may have brought a newer count. A count nobody refreshed
      // for staleHintMs is stale (a portal restart or a window reset unseen leaves it low for
      // nothing): one call may go to learn it anew, at most one per staleHintMs.
      const lastCall = madeSince.at(-1) ?? server.at;
      const staleAt = lastCall + staleHintMs(probe);
      if (staleAt <= now) serverLeft = 1;
      else serverRetryAt = Math.min(now + probe.baseMs, staleAt, server.at + windowMs);
    } else if (serverLeft <= 0) {
      const lastCall = madeSince.at(-1) ?? server.at;
      const probeAt = Math.max(server.at, lastCall) + probeDelay(server.zeroStreak, probe);
      // The server has nothing left: once the probe time has come, one call may go to learn its
      // new count.
      if (probeAt <= now) serverLeft = 1;
      else serverRetryAt = Math.min(probeAt, server.at + windowMs);
    }
  }

  const clientOk = clientLeft > 0;
  const serverOk = serverLeft > 0;
  const remaining = Math.max(0, Math.min(clientLeft, serverLeft));
  if (clientOk && serverOk) {
    return { allowed: true, retryAt: now, used, remaining, limitedBy: null };
  }
  const retryAt = Math.max(clientOk ? now : clientRetryAt, serverOk ? now : serverRetryAt);
  return {
    allowed: false,
    retryAt,
    used,
    remaining: 0,
    limitedBy: clientOk ? 'server' : 'client',
  };
}

/** The next server hint after an answer carrying x-ratelimit-remaining (and maybe -limit). */
export function nextHint(
  previous: ServerHint | undefined,
  remaining: number,
  limit: number | undefined,
  at: number,
): ServerHint {
  const zeroStreak = remaining <= 0 ? (previous?.zeroStreak ?? 0) + 1 : 0;
  return { remaining: Math.max(0, remaining), limit, at, zeroStreak };
}
