import { describe, expect, it } from 'vitest';
import { failurePolicy } from '../../../src/api/failurePolicy.ts';
import {
  BadResponseError,
  BudgetExhaustedError,
  BulkIncompleteError,
  ClientClosedError,
  LoginBlockedError,
  LoginRejectedError,
  LoginWaitError,
  NetworkError,
  PortalHttpError,
  RateLimitedError,
  RequestTimeoutError,
  TokenRefusedError,
} from '../../../src/api/portalErrors.ts';

const http = (status: number, extra: Record<string, unknown> = {}) =>
  new PortalHttpError(`POST /x: HTTP ${status}`, { status, ...extra });

describe('the failure policy', () => {
  it('a 4xx refusal is final, with the portal’s own words', () => {
    for (const status of [400, 404, 409, 422]) {
      expect(failurePolicy(http(status, { apiMessage: 'Shipment already shipped' }))).toEqual({
        kind: 'final',
        message: 'Shipment already shipped',
        status,
      });
    }
    expect(failurePolicy(http(400, { excerpt: 'Bad Request page' }))).toMatchObject({
      kind: 'final',
      message: 'Bad Request page',
    });
  });

  it('403 and refused credentials need a person: fix-config, never final', () => {
    expect(failurePolicy(http(403, { apiMessage: 'Insufficient permissions' }))).toEqual({
      kind: 'fix-config',
      reason: 'the portal answered 403 (insufficient permissions): Insufficient permissions',
    });
    expect(failurePolicy(new LoginRejectedError('refused', { status: 401 })).kind).toBe(
      'fix-config',
    );
    expect(failurePolicy(new LoginBlockedError('blocked')).kind).toBe('fix-config');
  });

  it('what may pass is retried, at the time the portal named when it named one', () => {
    expect(failurePolicy(http(503))).toEqual({
      kind: 'retry',
      notBefore: undefined,
      outcomeUnknown: false,
    });
    expect(failurePolicy(http(500, { outcomeUnknown: true }))).toMatchObject({
      kind: 'retry',
      outcomeUnknown: true,
    });
    expect(failurePolicy(http(408)).kind).toBe('retry');
    // A 4xx the client knows may pass (a 'collected' refused while not shipped yet).
    expect(failurePolicy(http(409, { retryable: true })).kind).toBe('retry');
    expect(failurePolicy(new RateLimitedError('429', { status: 429, retryAt: 1234 }))).toEqual({
      kind: 'retry',
      notBefore: 1234,
      outcomeUnknown: false,
    });
    for (const err of [
      new NetworkError('reset', { outcomeUnknown: true }),
      new RequestTimeoutError('slow', { outcomeUnknown: true }),
      new BadResponseError('odd body'),
      new ClientClosedError('closing'),
      new Error('a bug'),
      'not even an error',
    ]) {
      expect(failurePolicy(err).kind).toBe('retry');
    }
  });

  it('a spent budget, the login cap and the re-login spacing wait until their time', () => {
    expect(failurePolicy(new BudgetExhaustedError('stock', 5000))).toMatchObject({
      kind: 'wait',
      until: 5000,
    });
    expect(failurePolicy(new LoginWaitError('cap', 6000))).toMatchObject({
      kind: 'wait',
      until: 6000,
    });
    expect(failurePolicy(new TokenRefusedError('refused', 7000))).toMatchObject({
      kind: 'wait',
      until: 7000,
    });
  });

  it('a bulk update that stopped part-way is decided by what stopped it', () => {
    const stopped = new BulkIncompleteError(new BudgetExhaustedError('stock', 99), {}, [1, 2]);
    expect(failurePolicy(stopped)).toMatchObject({ kind: 'wait', until: 99 });
    expect(failurePolicy(new BulkIncompleteError(http(403), {}, [])).kind).toBe('fix-config');
  });
});
