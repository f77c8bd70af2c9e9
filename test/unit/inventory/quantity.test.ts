import { describe, expect, it } from 'vitest';
import { checkQuantity } from '../../../src/inventory/validate/fields.ts';
import { MAX_QUANTITY, parseQuantity } from '../../../src/inventory/validate/quantity.ts';
import { validateStockRow } from '../../../src/inventory/validate/rows.ts';

const ok = (value: number, clamped = false) => ({ ok: true, value, clamped });
const FRACTION_DOT = 'has a fraction (decimal mark "."): quantities are whole';
const FRACTION_COMMA = 'has a fraction (decimal mark ","): quantities are whole';
const GROUPS_DOT = 'digits not grouped by threes: with the decimal mark ".", "," groups thousands';
const GROUPS_COMMA =
  'digits not grouped by threes: with the decimal mark ",", "." groups thousands';

describe('parseQuantity, decimal mark "." (the default)', () => {
  it.each([
    ['12', 12],
    [' 007 ', 7],
    ['12.00', 12],
    ['12.', 12],
    ['1,234', 1234],
    ['1,234,567.000', 1_234_567],
    [12, 12],
    [7.0, 7],
    ['2,147,483,647', MAX_QUANTITY],
  ])('%j is %d', (value, n) => {
    expect(parseQuantity(value)).toEqual(ok(n));
  });

  it.each([
    ['2.5', FRACTION_DOT],
    ['1,234.5', FRACTION_DOT],
    ['1.234', FRACTION_DOT],
    ['1,5', GROUPS_DOT],
    ['1,23', GROUPS_DOT],
    ['12,3456', GROUPS_DOT],
    ['1,234,56', GROUPS_DOT],
    [2.5, '2.5 has a fraction: quantities are whole'],
    ['', 'empty'],
    [null, 'missing'],
    ['1e3', 'not a whole number ≥ 0'],
    ['+5', 'not a whole number ≥ 0'],
    ['1 000', 'not a whole number ≥ 0'],
    ['1.2.3', 'not a whole number ≥ 0'],
    ['.5', 'not a whole number ≥ 0'],
    ['abc', 'not a whole number ≥ 0'],
    [true, 'not a whole number ≥ 0'],
    ['2,147,483,648', `above ${MAX_QUANTITY}`],
  ])('%j is a bad value: %s', (value, reason) => {
    expect(parseQuantity(value)).toEqual({ ok: false, reason });
  });
});

describe('parseQuantity, decimal mark ","', () => {
  const comma = { decimal: ',' } as const;
  it.each([
    ['12,00', 12],
    ['1.234,00', 1234],
    ['1.234', 1234],
    ['1.234.567', 1_234_567],
    ['5', 5],
  ])('%j is %d', (value, n) => {
    expect(parseQuantity(value, comma)).toEqual(ok(n));
  });

  it.each([
    ['1,5', FRACTION_COMMA],
    ['1,23', FRACTION_COMMA],
    ['1.5', GROUPS_COMMA],
    ['12.00', GROUPS_COMMA],
    ['1,2,3', 'not a whole number ≥ 0'],
  ])('%j is a bad value: %s', (value, reason) => {
    expect(parseQuantity(value, comma)).toEqual({ ok: false, reason });
  });
});

describe('negative quantities', () => {
  it.each(['-5', '5-', ' -1,234 ', '\u22125', -5])('%j is rejected by default', (value) => {
    expect(parseQuantity(value)).toEqual({ ok: false, reason: 'not a whole number ≥ 0' });
    expect(parseQuantity(value, { negative: 'reject' })).toEqual({
      ok: false,
      reason: 'not a whole number ≥ 0',
    });
  });

  it.each(['-5', '5-', '-1,234', '\u22125', -5])(
    '%j is clamped to 0 with negative "zero"',
    (value) => {
      expect(parseQuantity(value, { negative: 'zero' })).toEqual(ok(0, true));
    },
  );

  it('is still a bad value when it is no whole number', () => {
    expect(parseQuantity('-2.5', { negative: 'zero' })).toEqual({
      ok: false,
      reason: FRACTION_DOT,
    });
    expect(parseQuantity('-0', { negative: 'zero' })).toEqual(ok(0));
  });
});

describe('checkQuantity and validateStockRow', () => {
  it('keep their old behaviour without options', () => {
    expect(checkQuantity('12.00')).toEqual({ ok: false, reason: 'not a whole number ≥ 0' });
    expect(checkQuantity('1,234')).toEqual({ ok: false, reason: 'not a whole number ≥ 0' });
    expect(checkQuantity('12')).toEqual({ ok: true, value: 12 });
  });

  it('read quantities as ERPs write them with options, and mark clamped rows', () => {
    expect(checkQuantity('1.234,00', { decimal: ',' })).toEqual(ok(1234));
    const rules = { maxSkuLength: 64, quantity: { decimal: ',', negative: 'zero' } } as const;
    expect(validateStockRow('factory_stock', { sku: 'A', stock_quantity: '-3' }, rules)).toEqual({
      ok: true,
      row: { dc: '', sku: 'A', quantity: 0, clamped: true },
    });
    expect(validateStockRow('factory_stock', { sku: 'A', stock_quantity: '1.234' }, rules)).toEqual(
      {
        ok: true,
        row: { dc: '', sku: 'A', quantity: 1234 },
      },
    );
    expect(validateStockRow('factory_stock', { sku: 'A', stock_quantity: '1,5' }, rules)).toEqual({
      ok: false,
      key: 'factory:A',
      field: 'stock_quantity',
      reason: FRACTION_COMMA,
      value: '1,5',
    });
  });
});
