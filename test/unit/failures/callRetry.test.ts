import { describe, expect, it } from 'vitest';
import {
  afterAnswer,
  afterNoAnswer,
  type CallRules,
  ERROR_JITTER,
  type Unanswered,
} from '../../../src/failures/callRetry.ts';

const NOW = 1_700_000_000_000;

/** A back-off schedule that records what it was asked: 100 ms doubling, at least the Retry-After. */
function schedule() {
  const asked: { attempt: number; jitter: number; retryAfter: number | undefined }[] = [];
  const delay = (attempt: number, jitter: number, retryAfter?: number) => {
    asked.push({ attempt, jitter, retryAfter });
    return Math.max(100 * 2 ** (attempt - 1), retryAfter ?? 0);
  };
  return { asked, delay };
}

function rules(over: Partial<CallRules> = {}): CallRules {
  return {
    method: 'GET',
    resend: 'always',
    retries: 0,
    retryLimit: 6,
    backoffMaxMs: 10_000,
    delay: schedule().delay,
    ...over,
  };
}

const answered = (status: number, retryAfter?: number) => ({ status, retryAfter, now: NOW });

const timeout: Unanswered = {
  error: { code: 'E_TIMEOUT', retryable: true },
  clientClosed: false,
  callAborted: false,
};

describe('afterAnswer', () => {
  it('a 2xx is the result, and proves the token', () => {
    for (const status of [200, 201, 204, 299]) {
      expect(afterAnswer(answered(status), rules())).toEqual({ kind: 'return', success: true });
    }
  });

  it('any other 4xx (and a 3xx) is the result for the caller to judge, never resent', () => {
    for (const status of [300, 304, 400, 403, 404, 408, 409, 422, 499]) {
      expect(afterAnswer(answered(status), rules())).toEqual({ kind: 'return', success: false });
    }
  });

  it('a 401 logs in again without spending a retry, even when none are left', () => {
    expect(afterAnswer(answered(401), rules())).toEqual({ kind: 'login-again' });
    expect(afterAnswer(answered(401), rules({ retries: 6 }))).toEqual({ kind: 'login-again' });
    expect(afterAnswer(answered(401), rules({ resend: 'never' }))).toEqual({
      kind: 'login-again',
    });
  });

  describe('429', () => {
    it('without Retry-After: waits the exact schedule (no jitter) and logs api.rate_limited', () => {
      const { asked, delay } = schedule();
      const step = afterAnswer(answered(429), rules({ retries: 2, delay }));
      expect(asked).toEqual([{ attempt: 3, jitter: 0, retryAfter: undefined }]);
      expect(step).toEqual({
        kind: 'resend',
        attempt: 3,
        waitMs: 400,
        event: 'api.rate_limited',
        fields: { attempt: 3, waitMs: 400, retryAfter: undefined },
        message: 'rate-limited by the portal; backing off',
      });
      // Logged in this order after event and route, as before the decision moved here.
      expect(Object.keys(step.kind === 'resend' ? step.fields : {})).toEqual([
        'attempt',
        'waitMs',
        'retryAfter',
      ]);
    });

    it('is resent whatever the request, creations included (the portal did not do it)', () => {
      for (const resend of ['always', 'unanswered', 'never'] as const) {
        const step = afterAnswer(answered(429), rules({ resend, method: 'POST' }));
        expect(step.kind).toBe('resend');
      }
    });

    it('with a Retry-After within the back-off cap: waits at least that long within the call', () => {
      const { asked, delay } = schedule();
      const step = afterAnswer(answered(429, 3_000), rules({ delay }));
      expect(asked).toEqual([{ attempt: 1, jitter: 0, retryAfter: 3_000 }]);
      expect(step).toMatchObject({
        kind: 'resend',
        attempt: 1,
        waitMs: 3_000,
        event: 'api.rate_limited',
        fields: { attempt: 1, waitMs: 3_000, retryAfter: 3_000 },
      });
      // Exactly the cap still waits within the call.
      expect(afterAnswer(answered(429, 10_000), rules()).kind).toBe('resend');
    });

    it('with a Retry-After beyond the back-off cap: ends the call, not before that time', () => {
      const step = afterAnswer(answered(429, 10_001), rules());
      expect(step).toEqual({
        kind: 'throw-rate-limited',
        retryAt: NOW + 10_001,
        because: 'asking to wait 10 s',
      });
      expect(afterAnswer(answered(429, 90_000), rules({ retries: 3 }))).toEqual({
        kind: 'throw-rate-limited',
        retryAt: NOW + 90_000,
        because: 'asking to wait 90 s',
      });
    });

    it('after the last retry: ends the call, not before the next step of the schedule', () => {
      const { asked, delay } = schedule();
      const step = afterAnswer(answered(429), rules({ retries: 6, delay }));
      expect(asked).toEqual([{ attempt: 7, jitter: 0, retryAfter: undefined }]);
      expect(step).toEqual({
        kind: 'throw-rate-limited',
        retryAt: NOW + 6_400,
        because: 'after 6 retries',
      });
    });

    it('with no retries left the count is named, even when a long Retry-After came too', () => {
      const step = afterAnswer(answered(429, 60_000), rules({ retries: 6 }));
      expect(step).toEqual({
        kind: 'throw-rate-limited',
        retryAt: NOW + 60_000,
        because: 'after 6 retries',
      });
    });
  });

  describe('5xx', () => {
    it('resent when resending is always safe: jittered back-off, logged as api.retry', () => {
      const { asked, delay } = schedule();
      const step = afterAnswer(answered(503), rules({ retries: 1, delay }));
      expect(asked).toEqual([{ attempt: 2, jitter: ERROR_JITTER, retryAfter: undefined }]);
      expect(ERROR_JITTER).toBe(0.5);
      expect(step).toEqual({
        kind: 'resend',
        attempt: 2,
        waitMs: 200,
        event: 'api.retry',
        fields: { status: 503, attempt: 2, waitMs: 200 },
        message: 'portal error; retrying',
      });
      expect(Object.keys(step.kind === 'resend' ? step.fields : {})).toEqual([
        'status',
        'attempt',
        'waitMs',
      ]);
    });

    it('a Retry-After on a 5xx does not change its back-off', () => {
      const { asked, delay } = schedule();
      afterAnswer(answered(500, 30_000), rules({ delay }));
      expect(asked).toEqual([{ attempt: 1, jitter: ERROR_JITTER, retryAfter: undefined }]);
    });

    it('ends the call for a shipment action or a creation (answered: never resent)', () => {
      for (const resend of ['unanswered', 'never'] as const) {
        const { asked, delay } = schedule();
        expect(afterAnswer(answered(502), rules({ resend, method: 'POST', delay }))).toEqual({
          kind: 'throw-http',
          outcomeUnknown: true,
        });
        expect(asked).toEqual([]);
      }
    });

    it('ends the call after the last retry; only a read is known not to have been applied', () => {
      expect(afterAnswer(answered(500), rules({ retries: 6, method: 'GET' }))).toEqual({
        kind: 'throw-http',
        outcomeUnknown: false,
      });
      for (const method of ['PUT', 'POST', 'DELETE', 'PATCH']) {
        expect(afterAnswer(answered(500), rules({ retries: 6, method }))).toEqual({
          kind: 'throw-http',
          outcomeUnknown: true,
        });
      }
    });

    it('the limit is the number of retries: one left is used, none left ends it', () => {
      expect(afterAnswer(answered(500), rules({ retries: 5 })).kind).toBe('resend');
      expect(afterAnswer(answered(500), rules({ retries: 6 })).kind).toBe('throw-http');
      expect(afterAnswer(answered(500), rules({ retryLimit: 0 })).kind).toBe('throw-http');
    });
  });
});

describe('afterNoAnswer', () => {
  it('a retryable portal error with retries left: jittered back-off, logged with its code', () => {
    const { asked, delay } = schedule();
    const step = afterNoAnswer(timeout, rules({ retries: 2, delay }));
    expect(asked).toEqual([{ attempt: 3, jitter: ERROR_JITTER, retryAfter: undefined }]);
    expect(step).toEqual({
      kind: 'resend',
      attempt: 3,
      waitMs: 400,
      event: 'api.retry',
      fields: { reason: 'E_TIMEOUT', attempt: 3, waitMs: 400 },
      message: 'no answer from the portal; retrying',
    });
    expect(Object.keys(step.kind === 'resend' ? step.fields : {})).toEqual([
      'reason',
      'attempt',
      'waitMs',
    ]);
  });

  it('a shipment action is resent when no answer came, a creation never', () => {
    expect(afterNoAnswer(timeout, rules({ resend: 'unanswered', method: 'POST' })).kind).toBe(
      'resend',
    );
    const { asked, delay } = schedule();
    expect(afterNoAnswer(timeout, rules({ resend: 'never', method: 'POST', delay }))).toEqual({
      kind: 'throw-as-is',
    });
    expect(asked).toEqual([]);
  });

  it('after the last retry the error ends the call as it was thrown', () => {
    expect(afterNoAnswer(timeout, rules({ retries: 5 })).kind).toBe('resend');
    expect(afterNoAnswer(timeout, rules({ retries: 6 }))).toEqual({ kind: 'throw-as-is' });
  });

  it('an error that may not pass, or that is not a portal error, ends the call as thrown', () => {
    const refused = { ...timeout, error: { code: 'E_BAD_RESPONSE', retryable: false } };
    expect(afterNoAnswer(refused, rules())).toEqual({ kind: 'throw-as-is' });
    expect(afterNoAnswer({ ...timeout, error: undefined }, rules())).toEqual({
      kind: 'throw-as-is',
    });
  });

  it('an aborted call is not resent', () => {
    expect(afterNoAnswer({ ...timeout, callAborted: true }, rules())).toEqual({
      kind: 'throw-as-is',
    });
  });

  it('a closed client ends the call as closed, whatever the error was', () => {
    const closed = { ...timeout, clientClosed: true, callAborted: true };
    expect(afterNoAnswer(closed, rules())).toEqual({ kind: 'throw-closed' });
    expect(afterNoAnswer({ ...closed, error: undefined }, rules({ resend: 'never' }))).toEqual({
      kind: 'throw-closed',
    });
  });
});
