import type { Clock } from '../../domain/clock.ts';
import { foreignLoginNotification } from '../../domain/notification.ts';
import type { Logger } from '../../log/logger.ts';
import { registerSecret } from '../../log/redact.ts';
import { AuthStore } from '../../state/calls/authStore.ts';
import type { StateDb } from '../../state/db.ts';
import { enqueueNotification } from '../../state/notify/notifyOutbox.ts';
import { backoffDelay, parseRetryAfter } from '../backoff.ts';
import { errorDetails, parseJson } from '../body.ts';
import type { Transport } from '../http.ts';
import {
  BadResponseError,
  ClientClosedError,
  LoginBlockedError,
  LoginRejectedError,
  LoginWaitError,
  PortalHttpError,
  RateLimitedError,
  TokenRefusedError,
} from '../portalErrors.ts';
import { FOREIGN_LOGIN_REPEATS, recordForeignLogin } from './foreignLogins.ts';
import { activeLoginBlock, setLoginBlock } from './loginBlock.ts';
import { LoginCap } from './loginCap.ts';

export interface SessionDeps {
  readonly db: StateDb;
  readonly transport: Transport;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly email: string;
  readonly password: string;
  /** Hard cap on logins over any rolling hour (all processes on this data dir). */
  readonly loginsPerHour: number;
  readonly retryLimit: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  /** Base of the spacing of re-logins while fresh tokens are refused (see relogin.ts). */
  readonly reloginBaseMs: number;
  /**
   * While a re-login waits its turn, how soon a call may try again with the token it has, so that
   * work resumes this soon after the portal accepts tokens again.
   */
  readonly heldTokenRetryMs: number;
  /** Aborts waits when the client closes. */
  readonly signal: AbortSignal;
}

/** Epoch ms and reason of a re-login deferred, for one log line per decision. */
type Held = { readonly reason: string; readonly retryAt: number };

/**
 * The token's life: persisted in auth_token and reused after a restart; a login only when there
 * is none or the one it has was refused; one login in flight per process however many calls meet
 * the 401; every login through the gate of loginCap.ts (the cap, the spacing of re-logins while
 * fresh tokens are refused, the logins kept for later) and the wrong-credentials block. A call
 * never sleeps for a login: when none may go now it throws LoginWaitError or TokenRefusedError
 * with the time to come back, and the job waits (the failure policy's `wait`).
 */
export class Session {
  readonly #deps: SessionDeps;
  readonly #store: AuthStore;
  readonly #cap: LoginCap;
  #current: string | undefined;
  /** A good answer came with the current token (in this process). */
  #proven = false;
  #inflight: Promise<string> | undefined;
  /** The last token whose refusal was logged, and the last deferred login logged. */
  #loggedRefusal: string | undefined;
  #loggedHeld: Held | undefined;

  constructor(deps: SessionDeps) {
    this.#deps = deps;
    this.#store = new AuthStore(deps.db);
    this.#cap = new LoginCap(deps.db, deps.loginsPerHour, deps.reloginBaseMs);
    registerSecret(deps.password);
  }

  /** The token to send: the one in memory, else the stored one, else a fresh login. */
  async token(): Promise<string> {
    if (this.#current !== undefined) return this.#current;
    const stored = this.#stored();
    if (stored !== undefined) return this.#adopt(stored);
    this.#inflight ??= this.#login('first', undefined).finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /**
   * After a 401 that came with `refused`: a newer token (ours or another process's) if there is
   * one, else one login shared by every caller that met the same 401, when the gate lets it go;
   * else TokenRefusedError with the time to try again with the token it has (no later than
   * heldTokenRetryMs from now).
   */
  async afterRefusal(refused: string): Promise<string> {
    if (this.#current !== undefined && this.#current !== refused) return this.#current;
    if (this.#inflight !== undefined) return this.#inflight;
    const stored = this.#stored();
    if (stored !== undefined && stored !== refused) return this.#adopt(stored);
    this.#noteRefusal(refused);
    this.#inflight = this.#login('renew', refused).finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /** A 2xx answer came with `token`. */
  noteSuccess(token: string): void {
    if (token !== this.#current || this.#proven) return;
    this.#proven = true;
    this.#cap.proven(this.#deps.clock.now());
  }

  #stored(): string | undefined {
    const row = this.#store.readToken();
    return row !== undefined && row.account === this.#deps.email ? row.token : undefined;
  }

  #adopt(token: string): string {
    registerSecret(token, 'rotating');
    if (token !== this.#current) {
      this.#current = token;
      this.#proven = false;
    }
    return token;
  }

  /** One warning per refused token: served calls (someone else logged in) or fresh. */
  #noteRefusal(refused: string): void {
    if (this.#loggedRefusal === refused) return;
    this.#loggedRefusal = refused;
    const state = this.#cap.relogin();
    const unproven = state?.unproven ?? 0;
    this.#deps.logger.warn(
      {
        event: 'api.token_invalidated',
        servedCalls: unproven === 0,
        loginsSinceGoodCall: unproven,
      },
      unproven === 0
        ? 'token refused after good calls: another client probably logged in with this account'
        : `a fresh token was refused before any good call (${unproven} login(s) since the last); re-logins are spaced out`,
    );
    if (unproven === 0) this.#noteForeignLogin(refused);
  }

  /**
   * A token that served calls was refused: the portal keeps one valid token per account, so
   * another client logged in with it. Counted over the hour (once per token, across processes);
   * repeated, it is a warning of its own, before the other client spends the login cap.
   */
  #noteForeignLogin(refused: string): void {
    const d = this.#deps;
    const now = d.clock.now();
    const stored = this.#store.readToken();
    const foreign = recordForeignLogin(
      d.db,
      now,
      stored?.token === refused ? stored.obtainedAt : now,
    );
    if (foreign.lastHour < FOREIGN_LOGIN_REPEATS) return;
    d.logger.warn(
      {
        event: 'api.foreign_login',
        count: foreign.lastHour,
        windowMs: 3_600_000,
        account: d.email,
        loginsPerHour: d.loginsPerHour,
      },
      `the portal invalidated our token ${foreign.lastHour} times in the last hour: another client ` +
        `is logging in as ${d.email}; each costs us a login (at most ${d.loginsPerHour} an hour)`,
    );
    enqueueNotification(
      d.db,
      foreignLoginNotification(foreign.lastHour, d.email, d.loginsPerHour, now),
    );
  }

  async #login(mode: 'first' | 'renew', stale: string | undefined): Promise<string> {
    const d = this.#deps;
    let retries = 0;
    for (;;) {
      if (d.signal.aborted) throw new ClientClosedError('portal client closed');
      const block = activeLoginBlock(d.db, d.email, d.password);
      if (block !== undefined) {
        throw new LoginBlockedError(
          `logins stopped: the portal refused these credentials (HTTP ${block.status}) at ` +
            `${new Date(block.at).toISOString()}; fix SUPPLIER_EMAIL/SUPPLIER_PASSWORD or clear the block`,
          { status: block.status },
        );
      }
      // Another process may have logged in meanwhile: use its token rather than spend a login.
      const stored = this.#stored();
      if (stored !== undefined && stored !== stale) return this.#adopt(stored);

      const now = d.clock.now();
      const slot = this.#cap.tryTake(d.email, now, retries > 0 ? 'first' : mode);
      if (!slot.ok) throw this.#deferred(slot, mode, now);

      const outcome = await this.#attempt(slot.attemptId, retries, slot.unproven);
      if (typeof outcome === 'string') return outcome;
      retries++;
      await this.#sleep(outcome.waitMs);
    }
  }

  /** The error for a login the gate holds back, logged once per decision. */
  #deferred(
    slot: { reason: 'spacing' | 'cap'; retryAt: number; used: number },
    mode: 'first' | 'renew',
    now: number,
  ): Error {
    const d = this.#deps;
    const at = new Date(slot.retryAt).toISOString();
    const last = this.#loggedHeld;
    if (last?.reason !== slot.reason || last.retryAt !== slot.retryAt) {
      this.#loggedHeld = { reason: slot.reason, retryAt: slot.retryAt };
      d.logger.warn(
        {
          event: 'api.login_blocked',
          reason: slot.reason,
          loginsPerHour: d.loginsPerHour,
          used: slot.used,
          retryAt: slot.retryAt,
          waitMs: Math.max(0, slot.retryAt - now),
          heldTokenRetryMs: mode === 'renew' ? d.heldTokenRetryMs : undefined,
        },
        slot.reason === 'spacing'
          ? `re-login spaced out until ${at}; calls retry with the token it has meanwhile`
          : `login cap reached (${slot.used}/${d.loginsPerHour} in the last hour); next login at ${at}`,
      );
    }
    if (mode === 'first') {
      return new LoginWaitError(
        `no token, and the login cap allows the next login at ${at}`,
        slot.retryAt,
      );
    }
    const retryAt = Math.min(slot.retryAt, now + d.heldTokenRetryMs);
    return new TokenRefusedError(
      `the portal refused the token; next login at ${at} (${slot.reason}), calls retry with the token it has from ${new Date(retryAt).toISOString()}`,
      retryAt,
    );
  }

  /** One login request: the token, or how long to wait before the next attempt. */
  async #attempt(
    attemptId: number,
    retries: number,
    unproven: number,
  ): Promise<string | { waitMs: number }> {
    const d = this.#deps;
    let response: Awaited<ReturnType<Transport['send']>>;
    try {
      response = await d.transport.send({
        method: 'POST',
        path: 'login',
        json: { email: d.email, password: d.password },
        signal: d.signal,
      });
    } catch (err) {
      this.#cap.setOutcome(attemptId, 'error');
      if (retries >= d.retryLimit) throw err;
      return { waitMs: this.#backoff(retries + 1, 0.5) };
    }
    const { status } = response;
    if (status >= 200 && status < 300) {
      const body = parseJson(response) as { data?: { token?: unknown } } | undefined;
      const token = body?.data?.token;
      if (typeof token !== 'string' || token === '') {
        this.#cap.setOutcome(attemptId, 'error');
        throw new BadResponseError('login answered without data.token', { status });
      }
      registerSecret(token, 'rotating');
      this.#cap.setOutcome(attemptId, 'ok');
      this.#store.writeToken({ token, account: d.email, obtainedAt: d.clock.now() });
      this.#current = token;
      this.#proven = false;
      d.logger.info(
        { event: 'api.login', account: d.email, loginsSinceGoodCall: unproven },
        'logged in to the portal',
      );
      return token;
    }
    const details = errorDetails(response);
    if (status === 401 || status === 403) {
      this.#cap.setOutcome(attemptId, 'rejected');
      setLoginBlock(d.db, d.email, d.password, status, d.clock.now());
      d.logger.error(
        { event: 'api.login_rejected', status, apiCode: details.apiCode, account: d.email },
        'the portal refused the credentials; logins stopped until they change or an operator clears the block',
      );
      throw new LoginRejectedError(
        `the portal refused the login for ${d.email} (HTTP ${status}); logins stopped until the ` +
          'credentials change or an operator clears the block',
        { status, ...details },
      );
    }
    if (status === 429) {
      this.#cap.setOutcome(attemptId, 'rate_limited');
      const retryAfter = parseRetryAfter(response.headers['retry-after'], d.clock.now());
      const waitMs = this.#backoff(retries + 1, 0, retryAfter);
      if (retries >= d.retryLimit || (retryAfter ?? 0) > d.backoffMaxMs) {
        throw new RateLimitedError('login rate-limited by the portal', {
          status,
          ...details,
          retryAt: d.clock.now() + waitMs,
        });
      }
      d.logger.warn({ event: 'api.rate_limited', route: 'login', waitMs }, 'login rate-limited');
      return { waitMs };
    }
    this.#cap.setOutcome(attemptId, 'error');
    const error = new PortalHttpError(`login failed with HTTP ${status}`, { status, ...details });
    if (!error.retryable || retries >= d.retryLimit) throw error;
    return { waitMs: this.#backoff(retries + 1, 0.5) };
  }

  #backoff(attempt: number, jitter: number, retryAfter?: number): number {
    const d = this.#deps;
    return backoffDelay(attempt, {
      base: d.backoffBaseMs,
      max: d.backoffMaxMs,
      jitter,
      retryAfter,
    });
  }

  async #sleep(ms: number): Promise<void> {
    try {
      await this.#deps.clock.sleep(ms, this.#deps.signal);
    } catch {
      throw new ClientClosedError('portal client closed while waiting to log in');
    }
  }
}
