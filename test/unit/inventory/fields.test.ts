import { describe, expect, it } from 'vitest';
import {
  checkAction,
  checkFlag,
  checkQuantity,
  checkSku,
  checkText,
  MAX_QUANTITY,
} from '../../../src/inventory/validate/fields.ts';

describe('checkSku', () => {
  it('trims and accepts ordinary SKUs, and integer SKUs from JSON', () => {
    expect(checkSku('  AB-1 ', 64)).toEqual({ ok: true, value: 'AB-1' });
    expect(checkSku(12345, 64)).toEqual({ ok: true, value: '12345' });
    expect(checkSku('é漢字', 3)).toEqual({ ok: true, value: 'é漢字' });
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    [undefined, 'missing'],
    [null, 'missing'],
    [true, 'must be text'],
    [1.5, 'must be text'],
    ['A\tB', 'contains control characters or invalid UTF-8'],
    ['A\u0000', 'contains control characters or invalid UTF-8'],
    ['A\ufffdB', 'contains control characters or invalid UTF-8'],
    ['x'.repeat(65), 'longer than 64 characters'],
  ])('refuses %j (%s)', (value, reason) => {
    expect(checkSku(value, 64)).toEqual({ ok: false, reason });
  });
});

describe('checkQuantity', () => {
  it.each([
    ['12', 12],
    [' 12 ', 12],
    ['0', 0],
    ['007', 7],
    [12, 12],
    [0, 0],
    [String(MAX_QUANTITY), MAX_QUANTITY],
  ])('accepts %j as %d', (value, n) => {
    expect(checkQuantity(value)).toEqual({ ok: true, value: n });
  });

  it.each([
    ['1.5', 'not a whole number ≥ 0'],
    ['-1', 'not a whole number ≥ 0'],
    ['', 'empty'],
    ['  ', 'empty'],
    ['1e3', 'not a whole number ≥ 0'],
    ['0x10', 'not a whole number ≥ 0'],
    ['12abc', 'not a whole number ≥ 0'],
    ['+5', 'not a whole number ≥ 0'],
    ['1 000', 'not a whole number ≥ 0'],
    [1.5, 'not a whole number ≥ 0'],
    [-1, 'not a whole number ≥ 0'],
    [Number.NaN, 'not a whole number ≥ 0'],
    [true, 'not a whole number ≥ 0'],
    [undefined, 'missing'],
    [null, 'missing'],
    [String(MAX_QUANTITY + 1), `above ${MAX_QUANTITY}`],
    ['99999999999999999999', `above ${MAX_QUANTITY}`],
    [Number.MAX_SAFE_INTEGER + 2, `above ${MAX_QUANTITY}`],
  ])('refuses %j (%s)', (value, reason) => {
    expect(checkQuantity(value)).toEqual({ ok: false, reason });
  });
});

describe('checkFlag / checkAction / checkText', () => {
  it('reads is_collected leniently, missing meaning false', () => {
    for (const v of [true, 'true', 'TRUE', ' yes ', '1', 1, 'y'])
      expect(checkFlag(v)).toEqual({ ok: true, value: true });
    for (const v of [false, 'false', 'No', '0', 0, '', undefined, null])
      expect(checkFlag(v)).toEqual({ ok: true, value: false });
    for (const v of ['maybe', 2, {}]) expect(checkFlag(v).ok).toBe(false);
  });

  it('reads action with shipped as default', () => {
    expect(checkAction(undefined)).toEqual({ ok: true, value: 'shipped' });
    expect(checkAction('')).toEqual({ ok: true, value: 'shipped' });
    expect(checkAction(' Collected ')).toEqual({ ok: true, value: 'collected' });
    expect(checkAction('delivered')).toEqual({ ok: false, reason: 'must be shipped or collected' });
  });

  it('requires non-empty text', () => {
    expect(checkText(' UPS ')).toEqual({ ok: true, value: 'UPS' });
    expect(checkText('')).toEqual({ ok: false, reason: 'empty' });
    expect(checkText(undefined)).toEqual({ ok: false, reason: 'missing' });
  });
});
