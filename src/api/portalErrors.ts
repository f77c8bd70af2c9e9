import { CodedError } from '../failures/codedError.ts';
import { scrubString } from '../log/redact.ts';

/**
 * One family of errors for every failure of a portal call. Branch on the class or on `code`,
 * never on the message. An error never holds request options, headers or the token: only the
 * fields below, and its message is scrubbed of registered secrets.
 */
export type PortalErrorCode =
  | 'E_HTTP'
  | 'E_RATE_LIMITED'
  | 'E_NETWORK'
  | 'E_TIMEOUT'
  | 'E_BUDGET'
  | 'E_LOGIN_BLOCKED'
  | 'E_LOGIN_REJECTED'
  | 'E_LOGIN_WAIT'
  | 'E_TOKEN_REFUSED'
  | 'E_BAD_RESPONSE'
  | 'E_CLOSED';

export interface PortalErrorDetails {
  /** HTTP status of the answer, when there was one. */
  readonly status?: number | undefined;
  /** `error.code` of the API's error body. */
  readonly apiCode?: string | undefined;
  /** `error.field` of the API's error body. */
  readonly field?: string | undefined;
  /** `error.message` (or the 429 body's `message`), scrubbed. */
  readonly apiMessage?: string | undefined;
  /** A short, scrubbed excerpt of a body that was not the API's JSON (an HTML error page). */
  readonly excerpt?: string | undefined;
  /** Epoch ms before which a retry is pointless (budget, rate limit, login cap). */
  readonly retryAt?: number | undefined;
  /**
   * True when the request may have been applied although no usable answer came back (timeout,
   * reset, 5xx on a write): a later resend must treat "already done" as done.
   */
  readonly outcomeUnknown?: boolean | undefined;
  readonly cause?: unknown;
}

export abstract class PortalError extends CodedError {
  abstract override readonly code: PortalErrorCode;
  /** May pass: the same call is worth trying again later (the job that made it is retried). */
  abstract readonly retryable: boolean;
  readonly status: number | undefined;
  readonly apiCode: string | undefined;
  readonly field: string | undefined;
  readonly apiMessage: string | undefined;
  readonly excerpt: string | undefined;
  readonly retryAt: number | undefined;
  readonly outcomeUnknown: boolean;

  constructor(message: string, details: PortalErrorDetails = {}) {
    super(scrubString(message), details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.apiCode = details.apiCode;
    this.field = details.field;
    this.apiMessage =
      details.apiMessage === undefined ? undefined : scrubString(details.apiMessage);
    this.excerpt = details.excerpt === undefined ? undefined : scrubString(details.excerpt);
    this.retryAt = details.retryAt;
    this.outcomeUnknown = details.outcomeUnknown ?? false;
  }
}

/** An answer outside 2xx that is not handled more specifically. 5xx are retryable, 4xx final. */
export class PortalHttpError extends PortalError {
  readonly code = 'E_HTTP';
  readonly retryable: boolean;

  constructor(
    message: string,
    details: PortalErrorDetails & { readonly status: number; readonly retryable?: boolean },
  ) {
    super(message, details);
    this.retryable = details.retryable ?? (details.status >= 500 || details.status === 408);
  }
}

/** 429 answers went on after every allowed retry; `retryAt` says when to try again. */
export class RateLimitedError extends PortalError {
  readonly code = 'E_RATE_LIMITED';
  readonly retryable = true;
}

/** The connection failed or was reset before an answer came. */
export class NetworkError extends PortalError {
  readonly code = 'E_NETWORK';
  readonly retryable = true;
}

/** No answer within requestTimeoutMs. */
export class RequestTimeoutError extends PortalError {
  readonly code = 'E_TIMEOUT';
  readonly retryable = true;
}

/** The client-side call budget of this lane is spent until `retryAt`. */
export class BudgetExhaustedError extends PortalError {
  readonly code = 'E_BUDGET';
  readonly retryable = true;
  readonly lane: string;
  declare readonly retryAt: number;

  constructor(lane: string, retryAt: number) {
    super(`call budget of lane '${lane}' is spent until ${new Date(retryAt).toISOString()}`, {
      retryAt,
    });
    this.lane = lane;
  }
}

/** The portal refused the configured credentials (answered the login with 401/403). */
export class LoginRejectedError extends PortalError {
  readonly code = 'E_LOGIN_REJECTED';
  readonly retryable = false;
}

/**
 * Logins are stopped because the portal refused these credentials earlier; nothing will log in
 * until the e-mail or password changes or an operator clears the block (`clearLoginBlock`).
 */
export class LoginBlockedError extends PortalError {
  readonly code = 'E_LOGIN_BLOCKED';
  readonly retryable = false;
}

/**
 * No token is at hand and no login may be made before `retryAt`: the login cap of the rolling
 * hour is spent (see auth/loginCap.ts). Nothing is wrong with the call; it waits.
 */
export class LoginWaitError extends PortalError {
  readonly code = 'E_LOGIN_WAIT';
  readonly retryable = true;
  declare readonly retryAt: number;

  constructor(message: string, retryAt: number) {
    super(message, { retryAt });
  }
}

/**
 * The portal refused the token this call carried, and logging in again now is pointless or not
 * allowed (a fresh token was refused at once, or only the logins kept for later are left). The
 * call is worth trying again at `retryAt` with the token it has then: at the next allowed login,
 * or sooner, so that work resumes soon after the portal accepts tokens again.
 */
export class TokenRefusedError extends PortalError {
  readonly code = 'E_TOKEN_REFUSED';
  readonly retryable = true;
  declare readonly retryAt: number;

  constructor(message: string, retryAt: number) {
    super(message, { status: 401, retryAt });
  }
}

/** A 2xx answer whose body does not have the shape the spec shows. */
export class BadResponseError extends PortalError {
  readonly code = 'E_BAD_RESPONSE';
  readonly retryable = false;
}

/** The client was closed while the call was waiting or in flight. */
export class ClientClosedError extends PortalError {
  readonly code = 'E_CLOSED';
  readonly retryable = true;
}

/**
 * A bulk update that stopped part-way: a later request failed (budget, 5xx after retries, …)
 * after earlier ones were answered. `answered` holds what the portal said for the items sent
 * before, `unsent` the items that got no answer; `cause` is the failure (decide on it, see
 * failurePolicy). The caller keeps the answers and leaves the rest for later.
 */
export class BulkIncompleteError<I = unknown, A = unknown> extends CodedError {
  readonly code = 'E_BULK_INCOMPLETE';
  override readonly cause: unknown;
  readonly answered: A;
  readonly unsent: readonly I[];

  constructor(cause: unknown, answered: A, unsent: readonly I[]) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(scrubString(`bulk update stopped with ${unsent.length} items unsent: ${why}`), {
      cause,
    });
    this.cause = cause;
    this.answered = answered;
    this.unsent = unsent;
  }
}

/**
 * A 4xx that refuses what was sent, so that its content is worth a look (which item, already
 * done, not yet): not 403 (the account), 404 (the address), 408 (a timeout); 401 and 429 never
 * reach a caller (the call handles them).
 */
export function refusesContent(status: number): boolean {
  return status >= 400 && status < 500 && status !== 403 && status !== 404 && status !== 408;
}

export function isPortalError(err: unknown): err is PortalError {
  return err instanceof PortalError;
}
