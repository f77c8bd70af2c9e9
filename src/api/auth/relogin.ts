import { decideCall, HOUR_MS } from '../budget/decide.ts';

/**
 * When a login may go, pure. Two rules, besides the cap of `API_LOGINS_PER_HOUR` in any rolling
 * hour:
 *
 * - **Spacing.** A token refused before it served a single call means the portal refuses tokens
 *   as such (an outage of its token check, or another client logging in again and again):
 *   logging in again at once is pointless. After the n-th login since the last good call, the
 *   next one waits `base × 2ⁿ` (60 s, 2 min, 4 min … at the default base of 30 s), at most an
 *   hour. The first re-login after a token that did serve calls goes at once (another client
 *   logged in once). So an hour of every token refused costs at most 6 logins: 0, 1, 3, 7, 15
 *   and 31 minutes in (with gaps from 30 s it would be 7: 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5).
 * - **Reserve.** Such spaced re-logins leave `STORM_RESERVE` logins of the cap unspent, so that a
 *   login is still possible when the portal has recovered (or for a first login at start).
 */

/** Logins of the hourly cap that re-logins after refused fresh tokens leave for later. */
export const STORM_RESERVE = 2;
/** The longest gap between two re-logins while fresh tokens are refused. */
export const MAX_RELOGIN_GAP_MS = HOUR_MS;

/** What state.db keeps between restarts (kv `api.relogin`). */
export interface ReloginState {
  /** Logins since the last good call (0: the token it has served calls). */
  readonly unproven: number;
  /** Epoch ms of the last login attempt. */
  readonly lastLoginAt: number;
}

export interface LoginDecisionInput {
  /** Times of the login attempts of the last hour (any order). */
  readonly attempts: readonly number[];
  /** API_LOGINS_PER_HOUR. */
  readonly limit: number;
  /** 'first': there is no token; 'renew': the token it has was refused. */
  readonly mode: 'first' | 'renew';
  readonly state: ReloginState | undefined;
  /** Base of the spacing (API_RELOGIN_BASE_MS). */
  readonly baseMs: number;
  readonly now: number;
}

export type LoginDecision =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      /** Why: the spacing of re-logins, or the cap (with its reserve for spaced re-logins). */
      readonly reason: 'spacing' | 'cap';
      /** Epoch ms when a login may go. */
      readonly retryAt: number;
      /** Logins in the last hour. */
      readonly used: number;
    };

/** The gap after the n-th login since the last good call (n ≥ 1). */
export function reloginGap(unproven: number, baseMs: number): number {
  const n = Math.min(Math.max(1, unproven), 40);
  return Math.min(MAX_RELOGIN_GAP_MS, baseMs * 2 ** n);
}

export function decideLogin(input: LoginDecisionInput): LoginDecision {
  const { state, now } = input;
  const spaced = input.mode === 'renew' && state !== undefined && state.unproven > 0;
  const used = input.attempts.filter((t) => t > now - HOUR_MS).length;
  if (spaced) {
    const at = state.lastLoginAt + reloginGap(state.unproven, input.baseMs);
    if (now < at) return { allowed: false, reason: 'spacing', retryAt: at, used };
  }
  const reserve = spaced ? Math.min(STORM_RESERVE, input.limit - 1) : 0;
  const cap = decideCall({ calls: input.attempts, limit: input.limit, reserve, now });
  if (!cap.allowed) return { allowed: false, reason: 'cap', retryAt: cap.retryAt, used };
  return { allowed: true };
}
