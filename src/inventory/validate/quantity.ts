/**
 * Quantities as ERPs write them (product contract, "ERP exports as they come"): whole numbers,
 * where a fraction of zeros (`12.00`) and thousands grouped by threes (`1,234`; `1.234,00` with
 * the decimal mark `,`) are the whole numbers they write, and anything else (`2.5`, `1,5`) is a
 * bad value whose reason says why. A negative quantity (an oversold item) is recognised as such,
 * so that a profile's `negative: "zero"` can offer 0 instead of rejecting the row.
 */

/** The largest stock quantity accepted: the portal's integers are 32-bit signed. */
export const MAX_QUANTITY = 2_147_483_647;

export interface QuantityOptions {
  /** The decimal mark; the other of `.` and `,` may group thousands. Default `.`. */
  readonly decimal?: '.' | ',';
  /** `reject` (default): a negative quantity is a bad value; `zero`: it is taken as 0, clamped. */
  readonly negative?: 'reject' | 'zero';
  /**
   * A fraction that is not zeros (`10.55`): `reject` (default, a bad value), `floor` (10: never
   * offers what is not there) or `round` (half up).
   */
  readonly fractions?: 'reject' | 'floor' | 'round';
}

export type QuantityResult =
  | { readonly ok: true; readonly value: number; readonly clamped: boolean }
  | { readonly ok: false; readonly reason: string };

/** The reason for a negative quantity, and for anything that is no number at all (as before). */
export const NOT_WHOLE = 'not a whole number ≥ 0';

const fail = (reason: string): QuantityResult => ({ ok: false, reason });

/** Minus signs: ASCII, and U+2212 (a typeset minus some exports use). */
const MINUS = /^[-\u2212]|[-\u2212]$/;

/**
 * Parses one quantity: a JSON or worksheet number, or text. Text may have surrounding spaces, a
 * leading minus or a trailing one (as SAP writes `5-`), digits grouped by threes with the mark
 * that is not the decimal mark, and a fraction of zeros after the decimal mark.
 */
export function parseQuantity(value: unknown, options: QuantityOptions = {}): QuantityResult {
  if (typeof value === 'string') {
    const plain = plainDigits(value);
    if (plain >= 0) return { ok: true, value: plain, clamped: false };
  }
  const n = parseNumber(value, options);
  if (typeof n === 'string') return fail(n);
  if (
    typeof value === 'number' &&
    !Number.isInteger(n) &&
    (options.fractions ?? 'reject') === 'reject'
  ) {
    return fail(`${value} has a fraction: quantities are whole`);
  }
  return wholeQuantity(n, options);
}

/**
 * A quantity's number as written, sign and fraction kept (the text rules of parseQuantity), or
 * the reason it is none. For sums and differences of quantities (a profile's `subtract`), which
 * wholeQuantity then makes a quantity.
 */
export function parseNumber(value: unknown, options: QuantityOptions = {}): number | string {
  const decimal = options.decimal ?? '.';
  if (value === undefined || value === null) return 'missing';
  if (typeof value === 'number') return Number.isFinite(value) ? value : NOT_WHOLE;
  if (typeof value !== 'string') return NOT_WHOLE;
  let text = value.trim();
  if (text === '') return 'empty';
  const negative = MINUS.test(text);
  if (negative) text = text.replace(MINUS, '');
  const parsed = parseDigits(text, decimal);
  if (typeof parsed === 'string') return parsed;
  return negative ? -parsed : parsed;
}

/** A number as a quantity: its fraction as `fractions` says, its sign as `negative` says, bounded. */
export function wholeQuantity(n: number, options: QuantityOptions = {}): QuantityResult {
  let value = n;
  if (!Number.isInteger(value)) {
    const fractions = options.fractions ?? 'reject';
    if (fractions === 'reject') {
      return fail(
        `has a fraction (decimal mark "${options.decimal ?? '.'}"): quantities are whole`,
      );
    }
    // Rounded at 9 places first: 10.55 − 0.55 is 9.999999999999998 in binary.
    const exact = Math.round(value * 1e9) / 1e9;
    value = fractions === 'floor' ? Math.floor(exact) : Math.round(exact);
  }
  const magnitude = Math.abs(value);
  if (magnitude > MAX_QUANTITY) return fail(`above ${MAX_QUANTITY}`);
  if (value < 0) {
    return options.negative === 'zero' ? { ok: true, value: 0, clamped: true } : fail(NOT_WHOLE);
  }
  return { ok: true, value: magnitude, clamped: false };
}

/**
 * The value of 1 to 9 ASCII digits and nothing else (the common case, read without a regular
 * expression or a split: this runs once a row), or -1 for any other text.
 */
function plainDigits(text: string): number {
  const n = text.length;
  if (n === 0 || n > 9) return -1;
  let value = 0;
  for (let i = 0; i < n; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** The number unsigned text writes (a fraction kept), or the reason it is none. */
function parseDigits(text: string, decimal: '.' | ','): number | string {
  const group = decimal === '.' ? ',' : '.';
  const [whole = '', fraction, extra] = text.split(decimal);
  if (extra !== undefined || !/^\d[\d.,]*$/.test(whole) || !/^\d*$/.test(fraction ?? '')) {
    return NOT_WHOLE;
  }
  if (whole.includes(group) && !/^\d{1,3}(?:[.,]\d{3})+$/.test(whole)) {
    return `digits not grouped by threes: with the decimal mark "${decimal}", "${group}" groups thousands`;
  }
  const units = Number(whole.replaceAll(group, ''));
  return fraction === undefined || !/[1-9]/.test(fraction) ? units : Number(`${units}.${fraction}`);
}
