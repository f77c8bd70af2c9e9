import type { Clock } from '../../domain/clock.ts';
import type { Logger } from '../../log/logger.ts';
import { registerSecret } from '../../log/redact.ts';
import { AuthStore } from '../../state/authStore.ts';
import type { StateDb } from '../../state/db.ts';
import { backoffDelay, parseRetryAfter } from '../backoff.ts';
import { errorDetails, parseJson } from '../body.ts';
import {
  BadResponseError,
  ClientClosedError,
  LoginBlockedError,
  LoginRejectedError,
  PortalHttpError,
  RateLimitedError,
} from '../errors.ts';
import type { Transport } from '../http.ts';
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
  /** Aborts waits when the client closes. */
  readonly signal: AbortSignal;
}

/**
 * The token's life: persisted in auth_token and reused after a restart; a login only when there
 * is none or a 401 came with the current one; one login in flight per process however many calls
 * meet the 401; the login cap and the wrong-credentials block checked before every attempt.
 */
export class Session {
  readonly #deps: SessionDeps;
  readonly #store: AuthStore;
  readonly #cap: LoginCap;
  #current: string | undefined;
  /** Good answers obtained with the current token (a 401 after some means someone else logged in). */
  #goodCalls = 0;
  #inflight: Promise<string> | undefined;

  constructor(deps: SessionDeps) {
    this.#deps = deps;
    this.#store = new AuthStore(deps.db);
    this.#cap = new LoginCap(deps.db, deps.loginsPerHour);
    registerSecret(deps.password);
  }

  /** The token to send: the one in memory, else the stored one, else a fresh login. */
  async token(): Promise<string> {
    if (this.#current !== undefined) return this.#current;
    const stored = this.#stored();
    if (stored !== undefined) return this.#adopt(stored);
    this.#inflight ??= this.#login(undefined).finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /**
   * After a 401 that came with `stale`: a newer token (ours or another process's) if there is
   * one, else one login shared by every caller that met the same 401.
   */
  async renew(stale: string): Promise<string> {
    if (this.#current !== undefined && this.#current !== stale) return this.#current;
    if (this.#inflight !== undefined) return this.#inflight;
    const stored = this.#stored();
    if (stored !== undefined && stored !== stale) return this.#adopt(stored);
    if (this.#current === stale && this.#goodCalls > 0) {
      this.#deps.logger.warn(
        { event: 'api.token_invalidated', goodCalls: this.#goodCalls },
        'token refused after good calls: another client probably logged in with this account',
      );
    }
    this.#current = undefined;
    this.#store.deleteToken(stale);
    this.#inflight = this.#login(stale).finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /** A 2xx answer came with `token`. */
  noteSuccess(token: string): void {
    if (token === this.#current) this.#goodCalls++;
  }

  #stored(): string | undefined {
    const row = this.#store.readToken();
    return row !== undefined && row.account === this.#deps.email ? row.token : undefined;
  }

  #adopt(token: string): string {
    registerSecret(token, 'rotating');
    if (token !== this.#current) {
      this.#current = token;
      this.#goodCalls = 0;
    }
    return token;
  }

  async #login(stale: string | undefined): Promise<string> {
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
      const slot = this.#cap.tryTake(d.email, now);
      if (!slot.ok) {
        const waitMs = Math.max(1, slot.retryAt - now);
        d.logger.warn(
          {
            event: 'api.login_blocked',
            loginsPerHour: d.loginsPerHour,
            used: slot.used,
            retryAt: slot.retryAt,
            waitMs,
          },
          'login cap reached; waiting',
        );
        await this.#sleep(waitMs);
        continue;
      }

      const outcome = await this.#attempt(slot.attemptId, retries);
      if (typeof outcome === 'string') return outcome;
      retries++;
      await this.#sleep(outcome.waitMs);
    }
  }

  /** One login request: the token, or how long to wait before the next attempt. */
  async #attempt(attemptId: number, retries: number): Promise<string | { waitMs: number }> {
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
      this.#goodCalls = 0;
      d.logger.info({ event: 'api.login', account: d.email }, 'logged in to the portal');
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
      if (retries >= d.retryLimit) {
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
