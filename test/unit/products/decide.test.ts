import { describe, expect, it } from 'vitest';
import {
  BadResponseError,
  BudgetExhaustedError,
  ClientClosedError,
  NetworkError,
  PortalHttpError,
  RateLimitedError,
} from '../../../src/api/index.ts';
import { compileStockRules } from '../../../src/domain/stockRules.ts';
import { creationBody } from '../../../src/products/decide/birthStock.ts';
import { createVerdict, resendDelay } from '../../../src/products/decide/createAnswer.ts';

const draft = { sku: 'NEW-1', name: 'Oak chair', brand: 'Acme' };
const active = new Set(['DC-LON', 'DC-MAN', 'DC-DUB']);
const none = { factory: undefined, dcs: new Map<string, number>() };

describe('the stock a new product is born with', () => {
  it('is the file’s own, else desired stock; centres that are not active are left out', () => {
    const body = creationBody(
      draft,
      { factory: 12, dcs: { 'DC-LON': 3 } },
      {
        factory: 7,
        dcs: new Map([
          ['DC-LON', 9],
          ['DC-MAN', 4],
          ['DC-BER', 2],
        ]),
      },
      compileStockRules([]),
      active,
    );
    expect(body).toEqual({
      ...draft,
      factory_stock: { stock_quantity: 12 },
      distribution_centre_stock: [
        { distribution_centre_code: 'DC-LON', stock_quantity: 3 },
        { distribution_centre_code: 'DC-MAN', stock_quantity: 4 },
      ],
    });
  });

  it('is offered as the stock rules say; a key they exclude is not sent', () => {
    const rules = compileStockRules([
      { kind: 'dc', dc: 'DC-LON', exclude: true },
      { sku: 'NEW-*', buffer: 2 },
    ]);
    const body = creationBody(
      draft,
      { factory: 12, dcs: { 'DC-LON': 3, 'DC-DUB': 5 } },
      none,
      rules,
      active,
    );
    expect(body.factory_stock).toEqual({ stock_quantity: 10 });
    expect(body.distribution_centre_stock).toEqual([
      { distribution_centre_code: 'DC-DUB', stock_quantity: 3 },
    ]);
  });

  it('is nothing when nothing is known', () => {
    expect(creationBody(draft, { dcs: {} }, none, compileStockRules([]), active)).toEqual(draft);
  });
});

describe('a failed creation', () => {
  const http = (status: number, extra: Partial<{ apiCode: string; field: string }> = {}) =>
    new PortalHttpError(`POST /products: HTTP ${status}`, {
      status,
      apiMessage: 'the portal says no',
      ...extra,
    });

  it('that may have been applied keeps its intent: the portal is asked before a resend', () => {
    // A 2xx whose body could not be read was applied; a client closed mid-call may have been.
    expect(
      createVerdict(new BadResponseError('unexpected answer', { status: 201 }), 'sku').kind,
    ).toBe('unanswered');
    expect(createVerdict(new ClientClosedError('portal client closed'), 'sku').kind).toBe(
      'unanswered',
    );
    expect(createVerdict(new Error('a bug'), 'sku').kind).toBe('unanswered');
    expect(createVerdict(new NetworkError('reset', { outcomeUnknown: true }), 'sku')).toEqual({
      kind: 'unanswered',
    });
    expect(
      createVerdict(new PortalHttpError('x', { status: 502, outcomeUnknown: true }), 'sku'),
    ).toEqual({
      kind: 'unanswered',
    });
  });

  it('that was not applied goes back in line', () => {
    expect(createVerdict(new BudgetExhaustedError('products', Date.now() + 1000), 'sku').kind).toBe(
      'not-sent',
    );
    expect(createVerdict(new RateLimitedError('429', { retryAt: Date.now() }), 'sku').kind).toBe(
      'not-sent',
    );
    expect(createVerdict(http(403), 'sku').kind).toBe('not-sent');
  });

  it('refused in a way that may mean “already there” is checked; any other refusal is final', () => {
    expect(createVerdict(http(422, { apiCode: 'already_exists', field: 'sku' }), 'sku')).toEqual({
      kind: 'maybe-exists',
      message: 'HTTP 422: the portal says no',
    });
    expect(createVerdict(http(409), 'sku').kind).toBe('maybe-exists');
    expect(createVerdict(http(400, { field: 'sku' }), 'sku').kind).toBe('maybe-exists');
    expect(createVerdict(http(400, { field: 'name' }), 'name').kind).toBe('maybe-exists');
    expect(createVerdict(http(400, { field: 'site_pricing.0.tax_rate_id' }), 'sku')).toEqual({
      kind: 'refused',
      message: 'HTTP 400: the portal says no',
    });
  });
});

describe('a product sent again after attempts that did not land', () => {
  it('goes at once after the first, then backs off to an hour', () => {
    expect([1, 2, 3, 4, 10, 40].map(resendDelay)).toEqual([
      0, 30_000, 60_000, 120_000, 3_600_000, 3_600_000,
    ]);
  });
});
