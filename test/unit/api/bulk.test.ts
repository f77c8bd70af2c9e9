import { describe, expect, it } from 'vitest';
import { findMissing } from '../../../src/api/bulk.ts';

describe('findMissing', () => {
  it('factory items are matched by sku', () => {
    const items = [
      { sku: 'A', stock_quantity: 1 },
      { sku: 'B', stock_quantity: 2 },
      { sku: 'C', stock_quantity: 3 },
    ];
    const missing = findMissing(
      'factory',
      items,
      [{ sku: 'A', stock_quantity: 1, platform_sku: '1.2' }],
      [{ sku: 'C', error: 'Product not found', platform_sku: null, stock_quantity: null }],
    );
    expect(missing).toEqual([{ sku: 'B', stock_quantity: 2 }]);
  });

  it('DC items are matched by centre and sku; an error without a sku matches nothing', () => {
    const items = [
      { distribution_centre_code: 'X', sku: 'A', stock_quantity: 1 },
      { distribution_centre_code: 'Y', sku: 'A', stock_quantity: 1 },
      { distribution_centre_code: 'X', sku: 'B', stock_quantity: 1 },
    ];
    const missing = findMissing(
      'dc',
      items,
      [{ distribution_centre_code: 'X', sku: 'A', stock_quantity: 1 }],
      [{ distribution_centre_code: 'X', sku: null, error: 'The sku field is required' }],
    );
    expect(missing.map((m) => `${m.distribution_centre_code}/${m.sku}`)).toEqual(['Y/A', 'X/B']);
  });
});
