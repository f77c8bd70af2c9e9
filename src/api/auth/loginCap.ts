import { AuthStore } from '../../state/calls/authStore.ts';
import type { StateDb } from '../../state/db.ts';
import { KeyValueStore } from '../../state/kv.ts';
import type { Relogin } from '../../state/kvKeys.ts';
import { HOUR_MS } from '../budget/decide.ts';
import { decideLogin, type LoginDecision } from './relogin.ts';

export type LoginSlot =
  | { readonly ok: true; readonly attemptId: number; readonly unproven: number }
  | (Extract<LoginDecision, { allowed: false }> & { readonly ok: false });

const RELOGIN_KEY = 'api.relogin';

/**
 * Login attempts stamped ahead of `now`, and the last login the re-login spacing counts from (the
 * clock went back since), are stamped `now`: once, so that they leave the rolling hour within an
 * hour of real time. Returns how many attempts.
 */
export function restampLoginsAhead(store: AuthStore, kv: KeyValueStore, now: number): number {
  kv.update(RELOGIN_KEY, (r) => ({ ...r, lastLoginAt: Math.min(r.lastLoginAt, now) }), now);
  return store.restampAttemptsAhead(now);
}

/**
 * The gate every login passes, across restarts and processes: the hard cap on logins over any
 * rolling hour and the spacing of re-logins while fresh tokens are refused (relogin.ts). Checking
 * and recording the attempt is one IMMEDIATE transaction, so two processes cannot both pass the
 * last slot, nor both re-login at the same spaced time. Every attempt counts, whatever its outcome.
 */
export class LoginCap {
  readonly #store: AuthStore;
  readonly #kv: KeyValueStore;
  readonly #take;

  constructor(db: StateDb, limit: number, reloginBaseMs: number) {
    this.#store = new AuthStore(db);
    this.#kv = new KeyValueStore(db);
    this.#take = db.transaction(
      (account: string, now: number, mode: 'first' | 'renew'): LoginSlot => {
        // Attempts stamped ahead of the clock (it went back) count from now: re-stamped once, here.
        restampLoginsAhead(this.#store, this.#kv, now);
        this.#store.pruneLoginAttempts(now - 2 * HOUR_MS);
        const state = this.#kv.get(RELOGIN_KEY);
        const decision = decideLogin({
          attempts: this.#store.loginAttemptsSince(now - HOUR_MS),
          limit,
          mode,
          state,
          baseMs: reloginBaseMs,
          now,
        });
        if (!decision.allowed) return { ...decision, ok: false };
        const unproven = (state?.unproven ?? 0) + 1;
        this.#kv.set(RELOGIN_KEY, { unproven, lastLoginAt: now }, now);
        return {
          ok: true,
          attemptId: this.#store.recordLoginAttempt(now, account, 'pending'),
          unproven,
        };
      },
    );
  }

  /** A login may go now (recorded as an attempt), or not before `retryAt`. */
  tryTake(account: string, now: number, mode: 'first' | 'renew'): LoginSlot {
    return this.#take.immediate(account, now, mode);
  }

  setOutcome(attemptId: number, outcome: 'ok' | 'rejected' | 'rate_limited' | 'error'): void {
    this.#store.setLoginOutcome(attemptId, outcome);
  }

  /** What spaces re-logins now (undefined before the first login). */
  relogin(): Relogin | undefined {
    return this.#kv.get(RELOGIN_KEY);
  }

  /** A call succeeded with the token it has: the next refusal is worth a login at once. */
  proven(now: number): void {
    const state = this.#kv.get(RELOGIN_KEY);
    if (state !== undefined && state.unproven > 0) {
      this.#kv.set(RELOGIN_KEY, { ...state, unproven: 0 }, now);
    }
  }
}
