import type { StateDb } from '../db.ts';

export interface StoredToken {
  readonly token: string;
  /** The login e-mail the token belongs to. */
  readonly account: string;
  readonly obtainedAt: number;
}

export type LoginOutcome = 'pending' | 'ok' | 'rejected' | 'rate_limited' | 'error';

/** Typed queries on auth_token (the one persisted token) and login_attempts (the login cap). */
export class AuthStore {
  readonly #readToken;
  readonly #writeToken;
  readonly #attemptsSince;
  readonly #insertAttempt;
  readonly #setOutcome;
  readonly #pruneAttempts;
  readonly #restampAttempts;
  readonly #shiftAttempts;

  constructor(db: StateDb) {
    this.#readToken = db.prepare<[], { token: string; account: string; obtained_at: number }>(
      'SELECT token, account, obtained_at FROM auth_token WHERE id = 1',
    );
    this.#writeToken = db.prepare<[string, string, number]>(
      `INSERT INTO auth_token (id, token, account, obtained_at) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET token = excluded.token, account = excluded.account,
         obtained_at = excluded.obtained_at`,
    );
    this.#attemptsSince = db
      .prepare<[number], number>('SELECT at FROM login_attempts WHERE at > ? ORDER BY at')
      .pluck();
    this.#insertAttempt = db.prepare<[number, string, string]>(
      'INSERT INTO login_attempts (at, account, outcome) VALUES (?, ?, ?)',
    );
    this.#setOutcome = db.prepare<[string, number]>(
      'UPDATE login_attempts SET outcome = ? WHERE id = ?',
    );
    this.#pruneAttempts = db.prepare<[number]>('DELETE FROM login_attempts WHERE at <= ?');
    this.#restampAttempts = db.prepare<{ now: number }>(
      'UPDATE login_attempts SET at = @now WHERE at > @now',
    );
    this.#shiftAttempts = db.prepare<{ after: number; upTo: number; ms: number; cap: number }>(
      'UPDATE login_attempts SET at = MIN(at + @ms, @cap) WHERE at > @after AND at <= @upTo',
    );
  }

  readToken(): StoredToken | undefined {
    const row = this.#readToken.get();
    return row && { token: row.token, account: row.account, obtainedAt: row.obtained_at };
  }

  writeToken(t: StoredToken): void {
    this.#writeToken.run(t.token, t.account, t.obtainedAt);
  }

  /** Times of login attempts after `since`, oldest first (every account: the portal counts them all). */
  loginAttemptsSince(since: number): number[] {
    return this.#attemptsSince.all(since);
  }

  recordLoginAttempt(at: number, account: string, outcome: LoginOutcome): number {
    return Number(this.#insertAttempt.run(at, account, outcome).lastInsertRowid);
  }

  setLoginOutcome(id: number, outcome: LoginOutcome): void {
    this.#setOutcome.run(outcome, id);
  }

  pruneLoginAttempts(before: number): void {
    this.#pruneAttempts.run(before);
  }

  /** Login attempts stamped after `now` (the clock went back) are stamped `now`; returns how many. */
  restampAttemptsAhead(now: number): number {
    return this.#restampAttempts.run({ now }).changes;
  }

  /** Attempts stamped in (`after`, `upTo`] move `ms` later, never past `cap`; returns how many. */
  shiftAttempts(after: number, upTo: number, ms: number, cap: number): number {
    return this.#shiftAttempts.run({ after, upTo, ms, cap }).changes;
  }
}
