import { describe, expect, it } from 'vitest';
import { errorDetails, excerpt } from '../../../src/api/body.ts';
import {
  BudgetExhaustedError,
  LoginBlockedError,
  PortalHttpError,
  RateLimitedError,
} from '../../../src/api/portalErrors.ts';
import { registerSecret, serializeError } from '../../../src/log/redact.ts';

const raw = (status: number, text: string) => ({ status, headers: {}, text });

describe('error bodies', () => {
  it("reads the spec's error body and the 429 body", () => {
    expect(
      errorDetails(
        raw(400, '{"error":{"code":"invalid_parameter","message":"bad sku","field":"sku"}}'),
      ),
    ).toEqual({ apiCode: 'invalid_parameter', field: 'sku', apiMessage: 'bad sku' });
    expect(errorDetails(raw(429, '{"success":false,"message":"Too Many Requests"}'))).toEqual({
      apiMessage: 'Too Many Requests',
    });
  });

  it('keeps a short plain-text excerpt of an HTML page', () => {
    const html = `<!DOCTYPE html><html><head><title>500 Internal Server Error</title><style>b{}</style></head><body><h1>Oops</h1>${'x'.repeat(500)}</body></html>`;
    const details = errorDetails(raw(500, html));
    expect(details.excerpt).toMatch(/^500 Internal Server Error Oops x+…$/);
    expect(details.excerpt!.length).toBeLessThanOrEqual(201);
    expect(excerpt('   ')).toBeUndefined();
  });

  it('scrubs registered secrets out of messages and excerpts', () => {
    registerSecret('tok-SECRET-123456');
    const details = errorDetails(raw(500, '<p>token tok-SECRET-123456 refused</p>'));
    expect(details.excerpt).not.toContain('tok-SECRET-123456');
    const err = new PortalHttpError('failed with tok-SECRET-123456', { status: 401 });
    expect(err.message).not.toContain('tok-SECRET-123456');
    expect(JSON.stringify(serializeError(err))).not.toContain('tok-SECRET-123456');
  });
});

describe('error family', () => {
  it('has stable codes and retryability', () => {
    expect(new PortalHttpError('x', { status: 503 })).toMatchObject({
      code: 'E_HTTP',
      retryable: true,
      name: 'PortalHttpError',
    });
    expect(new PortalHttpError('x', { status: 404 }).retryable).toBe(false);
    expect(new RateLimitedError('x', { status: 429, retryAt: 5 })).toMatchObject({
      code: 'E_RATE_LIMITED',
      retryable: true,
      retryAt: 5,
    });
    const budget = new BudgetExhaustedError('stock', 1234);
    expect(budget).toMatchObject({
      code: 'E_BUDGET',
      lane: 'stock',
      retryAt: 1234,
      retryable: true,
    });
    expect(new LoginBlockedError('x')).toMatchObject({ code: 'E_LOGIN_BLOCKED', retryable: false });
  });
});
