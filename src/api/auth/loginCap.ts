import { AuthStore } from '../../state/authStore.ts';
import type { StateDb } from '../../state/db.ts';
import { decideCall, HOUR_MS } from '../budget/decide.ts';

export type LoginSlot =
  | { readonly ok: true; readonly attemptId: number }
  | { readonly ok: false; readonly retryAt: number; readonly used: number };

/**
 * The hard cap on logins over any rolling hour, across restarts and processes: checking the
 * count and recording the attempt is one IMMEDIATE transaction, so two processes cannot both pass
 * the last slot. Every attempt counts, whatever its outcome.
 */
export class LoginCap {
  readonly #store: AuthStore;
  readonly #take;

  constructor(db: StateDb, limit: number) {
    this.#store = new AuthStore(db);
    this.#take = db.transaction((account: string, now: number): LoginSlot => {
      this.#store.pruneLoginAttempts(now - 2 * HOUR_MS);
      const decision = decideCall({
        calls: this.#store.loginAttemptsSince(now - HOUR_MS),
        limit,
        reserve: 0,
        now,
      });
      if (!decision.allowed) return { ok: false, retryAt: decision.retryAt, used: decision.used };
      return { ok: true, attemptId: this.#store.recordLoginAttempt(now, account, 'pending') };
    });
  }

  tryTake(account: string, now: number): LoginSlot {
    return this.#take.immediate(account, now);
  }

  setOutcome(attemptId: number, outcome: 'ok' | 'rejected' | 'rate_limited' | 'error'): void {
    this.#store.setLoginOutcome(attemptId, outcome);
  }
}
