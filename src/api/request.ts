import type { Clock } from '../domain/clock.ts';
import {
  afterAnswer,
  afterNoAnswer,
  type CallRules,
  type Resend,
  type ResendStep,
} from '../failures/callRetry.ts';
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

/** When a request may be sent again within one call: failures/callRetry.ts. */
export type { Resend };

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

/**
 * One call with everything around it: token, budget slot per attempt, retries with back-off.
 * Resolves with any 2xx and with final 4xx answers (the caller decides); throws for what stays
 * unanswered, rate-limited or 5xx after the allowed retries. What follows each attempt is
 * decided by the failure layer (failures/callRetry.ts); this loop only carries it out.
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
  const rules = (retries: number): CallRules => ({
    method: spec.method,
    resend: spec.resend,
    retries,
    retryLimit: deps.retryLimit,
    backoffMaxMs: deps.backoffMaxMs,
    delay: (attempt, jitter, retryAfter) => backoff(deps, attempt, jitter, retryAfter),
  });
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
      const step = afterNoAnswer(
        {
          error:
            err instanceof PortalError ? { code: err.code, retryable: err.retryable } : undefined,
          clientClosed: deps.signal.aborted,
          callAborted: signal.aborted,
        },
        rules(retries),
      );
      if (step.kind === 'throw-closed') throw closed(err);
      if (step.kind === 'throw-as-is') throw err;
      retries = step.attempt;
      await resend(deps, step, where, signal);
      continue;
    }
    noteServer(deps, response);
    after429 = false;
    const now = deps.clock.now();
    const retryAfter = parseRetryAfter(response.headers['retry-after'], now);
    const step = afterAnswer({ status: response.status, retryAfter, now }, rules(retries));
    switch (step.kind) {
      case 'return':
        if (step.success) deps.session.noteSuccess(token);
        return answer(response, unanswered);
      case 'login-again':
        await deps.session.afterRefusal(token);
        continue;
      case 'resend':
        retries = step.attempt;
        // The resend after a 429 is the spec's own probe: it ignores the server's count.
        if (step.event === 'api.rate_limited') after429 = true;
        await resend(deps, step, where, signal);
        continue;
      case 'throw-http':
        throw httpError(where, response, step.outcomeUnknown);
      case 'throw-rate-limited':
        throw new RateLimitedError(`${where}: rate-limited by the portal ${step.because}`, {
          status: response.status,
          ...errorDetails(response),
          retryAt: step.retryAt,
        });
    }
  }
}

/** Logs the resend the policy chose and waits for it. */
async function resend(
  deps: RequestDeps,
  step: ResendStep,
  where: string,
  signal: AbortSignal,
): Promise<void> {
  deps.logger.warn({ event: step.event, route: where, ...step.fields }, step.message);
  await sleep(deps, step.waitMs, signal);
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
