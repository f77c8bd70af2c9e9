import { describe, expect, it } from 'vitest';
import { parseQuantity } from '../../../src/inventory/validate/quantity.ts';
import {
  applyRowRules,
  type ProfileRules,
  rowRulesOf,
  spreadRow,
} from '../../../src/inventory/validate/rowRules.ts';

const rules = (p: Partial<ProfileRules>) =>
  rowRulesOf({ values: {}, when: [], subtract: [], spread: {}, ...p }, (c) =>
    String(c).toLowerCase(),
  )!;

describe('row rules', () => {
  it('sets none: no rules at all', () => {
    expect(
      rowRulesOf({ values: {}, when: [], subtract: [], spread: {} }, (c) =>
        String(c).toLowerCase(),
      ),
    ).toBeUndefined();
  });

  it('when: the first condition that matches decides, trimmed and case-insensitive', () => {
    const r = rules({
      when: [
        // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
        { column: 'Type', equals: ['variable', 'grouped'], then: 'skip' },
        // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
        { column: 'status', equals: [0], then: 'zero' },
        // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
        { column: 'status', equals: ['keep me'], then: 'keep' },
      ],
    });
    expect(applyRowRules({ type: ' Variable ', status: '0', stock_quantity: '5' }, r, {})).toEqual({
      action: 'skip',
    });
    expect(applyRowRules({ type: 'simple', status: 0, stock_quantity: '10' }, r, {})).toEqual({
      action: 'row',
      fields: { type: 'simple', status: 0, stock_quantity: 0 },
    });
    expect(
      applyRowRules({ type: 'simple', status: 'KEEP ME', stock_quantity: 'x' }, r, {}),
    ).toEqual({
      action: 'keep',
    });
    expect(applyRowRules({ type: 'simple', status: '1', stock_quantity: '10' }, r, {})).toEqual({
      action: 'row',
      fields: { type: 'simple', status: '1', stock_quantity: '10' },
    });
  });

  it('values: quantity texts mean a number, skip or keep; "" is an empty cell', () => {
    const r = rules({ values: { 'Not Stocked': 0, '': 'keep', 'n/a': 'skip' } });
    expect(applyRowRules({ stock_quantity: ' not stocked ' }, r, {})).toEqual({
      action: 'row',
      fields: { stock_quantity: 0 },
    });
    expect(applyRowRules({ stock_quantity: '' }, r, {})).toEqual({ action: 'keep' });
    expect(applyRowRules({}, r, {})).toEqual({ action: 'keep' });
    expect(applyRowRules({ stock_quantity: 'N/A' }, r, {})).toEqual({ action: 'skip' });
  });

  it('subtract: available = on hand − reserved, an empty cell counting 0; a bad value names its column', () => {
    const r = rules({ subtract: ['reserved_quantity', 'blocked'] });
    expect(
      applyRowRules({ stock_quantity: '12,5', reserved_quantity: '2,5', blocked: '' }, r, {
        decimal: ',',
      }),
    ).toEqual({
      action: 'row',
      fields: { stock_quantity: 10, reserved_quantity: '2,5', blocked: '' },
    });
    expect(
      applyRowRules({ stock_quantity: '5', reserved_quantity: 'lots', blocked: '1' }, r, {}),
    ).toEqual({
      action: 'bad',
      error: { field: 'reserved_quantity', reason: 'not a whole number ≥ 0', value: 'lots' },
    });
  });

  it('spread: one DC row per quantity column', () => {
    const r = rules({
      spread: { 'inventory available: shop': 'DC-SHOP', 'inventory available: depot': 'WH-1' },
    });
    expect(
      spreadRow(
        { sku: 'A', 'inventory available: shop': '3', 'inventory available: depot': 'not stocked' },
        r,
      ).map((f) => [f.distribution_centre_code, f.stock_quantity]),
    ).toEqual([
      ['DC-SHOP', '3'],
      ['WH-1', 'not stocked'],
    ]);
  });
});

describe('fractions', () => {
  it('reject (the default), floor or round, in text and in cells', () => {
    expect(parseQuantity('10.55')).toEqual({
      ok: false,
      reason: 'has a fraction (decimal mark "."): quantities are whole',
    });
    expect(parseQuantity('10.55', { fractions: 'floor' })).toEqual({
      ok: true,
      value: 10,
      clamped: false,
    });
    expect(parseQuantity('10.55', { fractions: 'round' })).toEqual({
      ok: true,
      value: 11,
      clamped: false,
    });
    expect(parseQuantity('5.5000', { fractions: 'floor' })).toEqual({
      ok: true,
      value: 5,
      clamped: false,
    });
    expect(parseQuantity('1.234,5', { decimal: ',', fractions: 'floor' })).toEqual({
      ok: true,
      value: 1234,
      clamped: false,
    });
    expect(parseQuantity(2.5, { fractions: 'round' })).toEqual({
      ok: true,
      value: 3,
      clamped: false,
    });
    expect(parseQuantity(2.5)).toEqual({
      ok: false,
      reason: '2.5 has a fraction: quantities are whole',
    });
    expect(parseQuantity('-0.5', { fractions: 'floor', negative: 'zero' })).toEqual({
      ok: true,
      value: 0,
      clamped: true,
    });
    // 10.55 − 0.55 is 9.999999999999998 in binary: still 10.
    expect(parseQuantity(10.55 - 0.55, { fractions: 'floor' })).toEqual({
      ok: true,
      value: 10,
      clamped: false,
    });
  });
});
