import { describe, expect, it } from 'vitest';
import { isNotFoundError, nextAttemptAt } from '../../../src/domain/retrySchedule.ts';
import type { PendingKey } from '../../../src/domain/stock.ts';
import { classifyBulkAnswer, MISSING_FROM_ANSWER } from '../../../src/sync/decide/bulkResult.ts';
import { chooseFirstStart } from '../../../src/sync/decide/firstStart.ts';
import { nextBatchLength } from '../../../src/sync/decide/pushBatches.ts';
import { decidePush } from '../../../src/sync/decide/pushDecision.ts';

const c = (
  sku: string,
  desired: number,
  remote: number | null,
  failure: PendingKey['failure'] = null,
): PendingKey => ({
  kind: 'factory',
  dc: '',
  sku,
  desired,
  remote,
  failure,
});

describe('decidePush', () => {
  it('sends only real differences and settles equal keys', () => {
    const plan = decidePush([c('A', 5, 5), c('B', 6, 5), c('C', 0, null)], 1000);
    expect(plan.send.map((r) => [r.sku, r.quantity])).toEqual([
      ['B', 6],
      ['C', 0],
    ]);
    expect(plan.settle.map((k) => k.sku)).toEqual(['A']);
  });

  it('holds a failed quantity until its next attempt, but sends a newer quantity at once', () => {
    const waiting = c('A', 5, 1, { quantity: 5, nextAttemptAt: 2000 });
    const due = c('B', 5, 1, { quantity: 5, nextAttemptAt: 1000 });
    const newer = c('C', 7, 1, { quantity: 5, nextAttemptAt: 2000 });
    const plan = decidePush([waiting, due, newer], 1000);
    expect(plan.send.map((r) => r.sku)).toEqual(['B', 'C']);
    expect(plan.settle.map((k) => k.sku)).toEqual(['A']);
  });
});

describe('classifyBulkAnswer', () => {
  it('takes updated and errors from the answer and fails items in neither', () => {
    const sent = [
      { kind: 'dc' as const, dc: 'D1', sku: 'A', quantity: 1 },
      { kind: 'dc' as const, dc: 'D2', sku: 'A', quantity: 2 },
      { kind: 'dc' as const, dc: 'D1', sku: 'B', quantity: 3 },
      { kind: 'dc' as const, dc: 'D1', sku: 'C', quantity: 4 },
    ];
    const out = classifyBulkAnswer('dc', sent, {
      updated: [
        { sku: 'A', distribution_centre_code: 'D1', stock_quantity: 1, platform_sku: '1.2' },
      ],
      errors: [
        { sku: 'B', distribution_centre_code: 'D1', error: 'Product not found' },
        { sku: 'A', distribution_centre_code: 'D2', error: 'Distribution centre inactive' },
      ],
    });
    expect(out.updated).toEqual([{ ...sent[0], platformSku: '1.2', echoed: 1 }]);
    expect(out.failed.map((f) => [f.row.dc, f.row.sku, f.error, f.notFound])).toEqual([
      ['D2', 'A', 'Distribution centre inactive', false],
      ['D1', 'B', 'Product not found', true],
      ['D1', 'C', MISSING_FROM_ANSWER, false],
    ]);
  });

  it('matches a DC entry without its centre by SKU when the SKU was sent once, and keeps what the portal echoed', () => {
    const sent = [
      { kind: 'dc' as const, dc: 'D1', sku: 'A', quantity: 1 },
      { kind: 'dc' as const, dc: 'D1', sku: 'B', quantity: 900 },
      { kind: 'dc' as const, dc: 'D1', sku: 'C', quantity: 3 },
      { kind: 'dc' as const, dc: 'D2', sku: 'C', quantity: 4 },
    ];
    const out = classifyBulkAnswer('dc', sent, {
      updated: [{ sku: 'B', stock_quantity: 500 }],
      errors: [
        { sku: 'A', error: 'Product not found' },
        // C was sent twice: an entry without the centre cannot say which row it is.
        { sku: 'C', error: 'Something else' },
      ],
    });
    expect(out.updated).toEqual([{ ...sent[1], platformSku: null, echoed: 500 }]);
    expect(out.failed.map((f) => [f.row.dc, f.row.sku, f.error, f.notFound])).toEqual([
      ['D1', 'A', 'Product not found', true],
      ['D1', 'C', MISSING_FROM_ANSWER, false],
      ['D2', 'C', MISSING_FROM_ANSWER, false],
    ]);
  });

  it('matches factory rows by SKU alone', () => {
    const out = classifyBulkAnswer(
      'factory',
      [{ kind: 'factory', dc: '', sku: 'A', quantity: 1 }],
      {
        updated: [{ sku: 'A', stock_quantity: 1 }],
        errors: [],
      },
    );
    expect(out.updated).toHaveLength(1);
    expect(out.failed).toHaveLength(0);
  });
});

describe('nextBatchLength', () => {
  const dc = (d: string, sku: string) => ({ kind: 'dc' as const, dc: d, sku, quantity: 1 });
  it('cuts a DC batch before a SKU repeats, and at the size', () => {
    const rows = [dc('D1', 'A'), dc('D1', 'B'), dc('D2', 'C'), dc('D2', 'A'), dc('D2', 'D')];
    expect(nextBatchLength('dc', rows, 10)).toBe(3);
    expect(nextBatchLength('dc', rows.slice(3), 10)).toBe(2);
    expect(nextBatchLength('dc', rows, 2)).toBe(2);
    expect(nextBatchLength('dc', [], 2)).toBe(0);
    expect(nextBatchLength('factory', rows, 4)).toBe(4);
  });
});

describe('retry schedule', () => {
  const s = { baseMs: 1000, maxMs: 10_000, notFoundMs: 60_000 };
  it('doubles per attempt up to the cap; "Product not found" waits its own longer delay', () => {
    expect([1, 2, 3, 4, 5, 50].map((a) => nextAttemptAt(a, false, 0, s))).toEqual([
      1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
    expect(nextAttemptAt(1, true, 5, s)).toBe(60_005);
    expect(isNotFoundError('Product not found')).toBe(true);
    expect(isNotFoundError('Distribution centre inactive')).toBe(false);
  });
});

describe('chooseFirstStart', () => {
  it('reads factory stock (2,500 a page) and pushes DC stock (100 a page) at a batch of 1,000', () => {
    expect(
      chooseFirstStart({ kind: 'factory', desiredRows: 100_000, batchSize: 1000 }),
    ).toMatchObject({
      choice: 'read',
      readCalls: 40,
      pushCalls: 100,
    });
    expect(chooseFirstStart({ kind: 'dc', desiredRows: 300_000, batchSize: 1000 })).toMatchObject({
      choice: 'push',
      readCalls: 3000,
      pushCalls: 300,
    });
    expect(chooseFirstStart({ kind: 'factory', desiredRows: 10, batchSize: 1000 })).toMatchObject({
      choice: 'push',
      readCalls: 1,
      pushCalls: 1,
    });
  });
});
