import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../log/logger.ts';
import type { Session } from './auth/session.ts';
import { backoffDelay, parseRetryAfter } from './backoff.ts';
import { errorDetails, parseJson } from './body.ts';
import type { CallBudget } from './budget/budgetStore.ts';
import type { Lane } from './budget/decide.ts';
import type { RawRequest, RawResponse, Transport } from './http.ts';
import {
  ClientClosedError,
  PortalError,
  PortalHttpError,
  RateLimitedError,
} from './portalErrors.ts';

/**
 * When a request may be sent again within one call:
 * - 'always': reads, PUT/DELETE, absolute stock writes: after a 5xx, a timeout or a reset;
 * - 'unanswered': shipment actions: only when no answer came at all (timeout, reset);
 * - 'never': creations (a resend could create twice).
 * A 429 is always retried: the portal refused the request without doing it.
 */
export type Resend = 'always' | 'unanswered' | 'never';

export interface CallSpec extends Omit<RawRequest, 'token' | 'signal'> {
  readonly resend: Resend;
}

/** Per-call options every endpoint function accepts. */
export interface CallOptions {
  /** Budget lane; the client's default lane unless given. */
  readonly lane?: Lane;
  /** Sleep until the budget frees instead of throwing BudgetExhaustedError. */
  readonly waitForBudget?: boolean;
  readonly signal?: AbortSignal;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Parsed JSON, or undefined for an empty or non-JSON body. */
  readonly body: unknown;
  readonly raw: RawResponse;
  /** An earlier attempt of this call got no answer (it may have been applied). */
  readonly resentAfterNoAnswer: boolean;
}

export interface RequestDeps {
  readonly transport: Transport;
  readonly session: Session;
  readonly budget: CallBudget;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly retryLimit: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  readonly defaultLane: Lane;
  /** The client's own signal (aborted by close()). */
  readonly signal: AbortSignal;
}

/** Share of a 5xx/network back-off that is random. */
const ERROR_JITTER = 0.5;

/**
 * One call with everything around it: token, budget slot per attempt, retries with back-off.
 * Resolves with any 2xx and with final 4xx answers (the caller decides); throws for what stays
 * unanswered, rate-limited or 5xx after the allowed retries.
 */
export async function sendCall(
  deps: RequestDeps,
  spec: CallSpec,
  options: CallOptions = {},
): Promise<ApiResponse> {
  const lane = options.lane ?? deps.defaultLane;
  const signal =
    options.signal === undefined ? deps.signal : AbortSignal.any([deps.signal, options.signal]);
  const where = `${spec.method} /${spec.path}`;
  let retries = 0;
  let unanswered = false;
  let after429 = false;

  for (;;) {
    const token = await deps.session.token();
    await deps.budget.acquire(lane, {
      wait: options.waitForBudget ?? false,
      ignoreServer: after429,
      signal,
    });
    let response: RawResponse;
    try {
      response = await deps.transport.send({ ...spec, token, signal });
    } catch (err) {
      unanswered = true;
      if (deps.signal.aborted) throw closed(err);
      if (!(err instanceof PortalError) || !err.retryable || signal.aborted) throw err;
      if (spec.resend === 'never' || retries >= deps.retryLimit) throw err;
      retries++;
      const waitMs = backoff(deps, retries, ERROR_JITTER);
      deps.logger.warn(
        { event: 'api.retry', route: where, reason: err.code, attempt: retries, waitMs },
        'no answer from the portal; retrying',
      );
      await sleep(deps, waitMs, signal);
      continue;
    }
    noteServer(deps, response);
    const { status } = response;
    after429 = false;

    if (status >= 200 && status < 300) {
      deps.session.noteSuccess(token);
      return answer(response, unanswered);
    }
    if (status === 401) {
      // A newer token, or one login (at most: a token refused right after its own login is
      // answered by the spacing of re-logins with TokenRefusedError), then the call goes again.
      await deps.session.afterRefusal(token);
      continue;
    }
    if (status === 429) {
      const retryAfter = parseRetryAfter(response.headers['retry-after'], deps.clock.now());
      const waitMs = backoff(deps, retries + 1, 0, retryAfter);
      // A Retry-After beyond our own longest back-off is honoured, not cut short: the call ends
      // and its job waits until then instead of holding a worker (the failure policy's retry).
      if (retries >= deps.retryLimit || (retryAfter ?? 0) > deps.backoffMaxMs) {
        const why =
          retries >= deps.retryLimit
            ? `after ${retries} retries`
            : `asking to wait ${Math.round(waitMs / 1000)} s`;
        throw new RateLimitedError(`${where}: rate-limited by the portal ${why}`, {
          status,
          ...errorDetails(response),
          retryAt: deps.clock.now() + waitMs,
        });
      }
      retries++;
      after429 = true;
      deps.logger.warn(
        { event: 'api.rate_limited', route: where, attempt: retries, waitMs, retryAfter },
        'rate-limited by the portal; backing off',
      );
      await sleep(deps, waitMs, signal);
      continue;
    }
    if (status >= 500) {
      const error = httpError(where, response, spec.method !== 'GET');
      if (spec.resend !== 'always' || retries >= deps.retryLimit) throw error;
      retries++;
      const waitMs = backoff(deps, retries, ERROR_JITTER);
      deps.logger.warn(
        { event: 'api.retry', route: where, status, attempt: retries, waitMs },
        'portal error; retrying',
      );
      await sleep(deps, waitMs, signal);
      continue;
    }
    return answer(response, unanswered);
  }
}

/** Throws the typed error for any answer outside 2xx. */
export function expectOk(response: ApiResponse, where: string): ApiResponse {
  if (response.status >= 200 && response.status < 300) return response;
  throw httpError(where, response.raw, false);
}

export function httpError(
  where: string,
  response: RawResponse,
  outcomeUnknown: boolean,
): PortalHttpError {
  const details = errorDetails(response);
  const what = details.apiMessage ?? details.excerpt ?? '';
  return new PortalHttpError(`${where}: HTTP ${response.status}${what ? `: ${what}` : ''}`, {
    status: response.status,
    ...details,
    outcomeUnknown: outcomeUnknown && response.status >= 500,
  });
}

function answer(response: RawResponse, unanswered: boolean): ApiResponse {
  return {
    status: response.status,
    headers: response.headers,
    body: parseJson(response),
    raw: response,
    resentAfterNoAnswer: unanswered,
  };
}

function noteServer(deps: RequestDeps, response: RawResponse): void {
  const remaining = intHeader(response.headers['x-ratelimit-remaining']);
  if (remaining === undefined) return;
  deps.budget.noteServer(remaining, intHeader(response.headers['x-ratelimit-limit']));
}

function intHeader(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number.parseInt(value, 10);
}

function backoff(deps: RequestDeps, attempt: number, jitter: number, retryAfter?: number): number {
  return backoffDelay(attempt, {
    base: deps.backoffBaseMs,
    max: deps.backoffMaxMs,
    jitter,
    retryAfter,
  });
}

async function sleep(deps: RequestDeps, ms: number, signal: AbortSignal): Promise<void> {
  try {
    await deps.clock.sleep(ms, signal);
  } catch (err) {
    throw deps.signal.aborted ? closed(err) : err;
  }
}

function closed(cause: unknown): ClientClosedError {
  return new ClientClosedError('portal client closed during the call', {
    cause: cause instanceof PortalError ? cause : undefined,
    outcomeUnknown: true,
  });
}
