/**
 * The call's own retries, decided: after one attempt of a portal call (an answer, or an error with
 * no answer), whether the call returns, logs in again, waits and goes again, or ends with an error,
 * and which. Pure: `src/api/request.ts` gathers the facts, asks here, and does what it is told
 * (the token, the budget slot, the transport, the sleep, the log line). What the error that ends
 * a call means to the job around it is failurePolicy.ts's; docs/failures.md shows both levels.
 */

/**
 * When a request may be sent again within one call:
 * - 'always': reads, PUT/DELETE, absolute stock writes: after a 5xx, a timeout or a reset;
 * - 'unanswered': shipment actions: only when no answer came at all (timeout, reset);
 * - 'never': creations (a resend could create twice).
 * A 429 is always retried: the portal refused the request without doing it.
 */
export type Resend = 'always' | 'unanswered' | 'never';

/** An attempt that got an answer. */
export interface Answered {
  readonly status: number;
  /** The answer's Retry-After in ms from `now` (undefined: absent or unreadable). */
  readonly retryAfter: number | undefined;
  /** When the answer was read, epoch ms. */
  readonly now: number;
}

/** An attempt that got no answer: the transport threw. */
export interface Unanswered {
  /** The portal error thrown (its code, whether it may pass); undefined for any other error. */
  readonly error: { readonly code: string; readonly retryable: boolean } | undefined;
  /** The client was closed meanwhile. */
  readonly clientClosed: boolean;
  /** The call's own signal (or the client's) was aborted. */
  readonly callAborted: boolean;
}

/** The call and where it stands. */
export interface CallRules {
  readonly method: string;
  readonly resend: Resend;
  /** Retries made so far within this call (a re-login does not count). */
  readonly retries: number;
  readonly retryLimit: number;
  /** Our own longest back-off, in ms: a Retry-After beyond it ends the call. */
  readonly backoffMaxMs: number;
  /**
   * The back-off schedule (api/backoff.ts): the wait before retry number `attempt`, `jitter` of
   * it random, never shorter than `retryAfter`.
   */
  readonly delay: (attempt: number, jitter: number, retryAfter?: number) => number;
}

/** Wait `waitMs`, log `event` with `fields` and `message`, and send again as retry `attempt`. */
export interface ResendStep {
  readonly kind: 'resend';
  readonly attempt: number;
  readonly waitMs: number;
  readonly event: 'api.retry' | 'api.rate_limited';
  /** Log fields, in the order they are logged (after `event` and `route`). */
  readonly fields: ResendFields;
  readonly message: string;
}

export type ResendFields =
  | { readonly reason: string; readonly attempt: number; readonly waitMs: number }
  | { readonly status: number; readonly attempt: number; readonly waitMs: number }
  | {
      readonly attempt: number;
      readonly waitMs: number;
      readonly retryAfter: number | undefined;
    };

/** What follows an attempt that got an answer. */
export type AnswerStep =
  /** The answer is the call's result (`success`: a 2xx, the token proved good). */
  | { readonly kind: 'return'; readonly success: boolean }
  /** The token was refused: a newer token or one login, then the call goes again (no retry spent). */
  | { readonly kind: 'login-again' }
  | ResendStep
  /** PortalHttpError of the answer. */
  | { readonly kind: 'throw-http'; readonly outcomeUnknown: boolean }
  /** RateLimitedError of the answer, not before `retryAt`; `because` ends its message. */
  | { readonly kind: 'throw-rate-limited'; readonly retryAt: number; readonly because: string };

/** What follows an attempt that got no answer. */
export type NoAnswerStep =
  | ResendStep
  /** ClientClosedError, the attempt's error as its cause, the outcome unknown. */
  | { readonly kind: 'throw-closed' }
  /** The attempt's own error, as it was thrown. */
  | { readonly kind: 'throw-as-is' };

/** Share of a 5xx/network back-off that is random, so many clients do not retry in step. */
export const ERROR_JITTER = 0.5;

/** The spec's 429 schedule is exact (1 s, 2 s, 4 s …): no jitter. */
const RATE_LIMIT_JITTER = 0;

/** What follows an attempt that got an answer. */
export function afterAnswer(answer: Answered, rules: CallRules): AnswerStep {
  const { status } = answer;
  if (status >= 200 && status < 300) return { kind: 'return', success: true };
  // A newer token, or one login (at most: a token refused right after its own login is answered
  // by the spacing of re-logins with TokenRefusedError), then the call goes again.
  if (status === 401) return { kind: 'login-again' };
  if (status === 429) return afterRateLimit(answer, rules);
  if (status >= 500) return afterServerError(status, rules);
  // Any other answer (a 4xx refusal) is the call's result: its caller decides what it means.
  return { kind: 'return', success: false };
}

/**
 * What follows an attempt that got no answer. A closed client ends the call as closed; an error
 * that is not a portal error that may pass, or an aborted call, ends it with that error; else it
 * is resent while retries are left, unless the request is one never resent (a creation).
 */
export function afterNoAnswer(attempt: Unanswered, rules: CallRules): NoAnswerStep {
  if (attempt.clientClosed) return { kind: 'throw-closed' };
  const { error } = attempt;
  if (error === undefined || !error.retryable || attempt.callAborted) return THROW_AS_IS;
  if (rules.resend === 'never' || spent(rules)) return THROW_AS_IS;
  return retryAfterError(rules, { reason: error.code }, 'no answer from the portal; retrying');
}

/**
 * A 429 waits within the call (the spec's exact schedule, at least the Retry-After) while retries
 * are left. A Retry-After beyond our own longest back-off is honoured, not cut short: the call
 * ends and its job waits until then instead of holding a worker (the failure policy's retry).
 */
function afterRateLimit(answer: Answered, rules: CallRules): AnswerStep {
  const { retryAfter } = answer;
  const next = rules.retries + 1;
  const waitMs = rules.delay(next, RATE_LIMIT_JITTER, retryAfter);
  if (spent(rules) || (retryAfter ?? 0) > rules.backoffMaxMs) {
    const because = spent(rules)
      ? `after ${rules.retries} retries`
      : `asking to wait ${Math.round(waitMs / 1000)} s`;
    return { kind: 'throw-rate-limited', retryAt: answer.now + waitMs, because };
  }
  return {
    kind: 'resend',
    attempt: next,
    waitMs,
    event: 'api.rate_limited',
    fields: { attempt: next, waitMs, retryAfter },
    message: 'rate-limited by the portal; backing off',
  };
}

/**
 * A 5xx is resent only where resending is always safe (never a creation, never a shipment action
 * that was answered); anything but a read may have been applied, so its outcome is unknown.
 */
function afterServerError(status: number, rules: CallRules): AnswerStep {
  if (rules.resend !== 'always' || spent(rules)) {
    return { kind: 'throw-http', outcomeUnknown: rules.method !== 'GET' };
  }
  return retryAfterError(rules, { status }, 'portal error; retrying');
}

/** The next attempt after an error (no answer, a 5xx): `api.retry`, its back-off jittered. */
function retryAfterError(
  rules: CallRules,
  why: { readonly reason: string } | { readonly status: number },
  message: string,
): ResendStep {
  const next = rules.retries + 1;
  const waitMs = rules.delay(next, ERROR_JITTER);
  return {
    kind: 'resend',
    attempt: next,
    waitMs,
    event: 'api.retry',
    fields: { ...why, attempt: next, waitMs },
    message,
  };
}

const THROW_AS_IS: NoAnswerStep = { kind: 'throw-as-is' };

function spent(rules: CallRules): boolean {
  return rules.retries >= rules.retryLimit;
}
