/**
 * When a notification the receiver did not take is tried again: the delay doubles from `baseMs`
 * up to `maxMs`, and once `giveUpAfterMs` (24 h) has passed since the notification was written,
 * the next failure drops it. The last attempt is made at that mark, not skipped past it.
 */
export interface NotifyRetry {
  /** NOTIFY_RETRY_BASE_MS: the delay after the first failed attempt. */
  readonly baseMs: number;
  /** NOTIFY_RETRY_MAX_MS: the longest delay between two attempts. */
  readonly maxMs: number;
  /** How long a notification is tried before it is dropped (NOTIFY_GIVE_UP_MS: 24 h). */
  readonly giveUpAfterMs: number;
}

export const NOTIFY_GIVE_UP_MS = 24 * 3_600_000;

export type AfterFailure =
  | { readonly drop: true }
  | { readonly drop: false; readonly nextAt: number };

/**
 * Pure: what follows a failed attempt at `now` of a notification written at `createdAt` that had
 * failed `attempts` times before.
 */
export function afterFailure(
  row: { readonly createdAt: number; readonly attempts: number },
  now: number,
  policy: NotifyRetry,
): AfterFailure {
  const deadline = row.createdAt + policy.giveUpAfterMs;
  if (now >= deadline) return { drop: true };
  const exponent = Math.min(row.attempts, 30);
  const delay = Math.min(policy.baseMs * 2 ** exponent, policy.maxMs);
  return { drop: false, nextAt: Math.min(now + delay, deadline) };
}
