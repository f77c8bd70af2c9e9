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
  const decimal = options.decimal ?? '.';
  let magnitude: number;
  let negative: boolean;
  if (value === undefined || value === null) return fail('missing');
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return fail(NOT_WHOLE);
    if (!Number.isInteger(value)) return fail(`${value} has a fraction: quantities are whole`);
    negative = value < 0;
    magnitude = Math.abs(value);
  } else if (typeof value === 'string') {
    const plain = plainDigits(value);
    if (plain >= 0) return { ok: true, value: plain, clamped: false };
    let text = value.trim();
    if (text === '') return fail('empty');
    negative = MINUS.test(text);
    if (negative) text = text.replace(MINUS, '');
    const parsed = parseDigits(text, decimal);
    if (typeof parsed === 'string') return fail(parsed);
    magnitude = parsed;
  } else {
    return fail(NOT_WHOLE);
  }
  if (magnitude > MAX_QUANTITY) return fail(`above ${MAX_QUANTITY}`);
  if (negative && magnitude !== 0) {
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

/** The whole number unsigned text writes, or the reason it is none. */
function parseDigits(text: string, decimal: '.' | ','): number | string {
  const group = decimal === '.' ? ',' : '.';
  const [whole = '', fraction, extra] = text.split(decimal);
  if (extra !== undefined || !/^\d[\d.,]*$/.test(whole) || !/^\d*$/.test(fraction ?? '')) {
    return NOT_WHOLE;
  }
  if (whole.includes(group) && !/^\d{1,3}(?:[.,]\d{3})+$/.test(whole)) {
    return `digits not grouped by threes: with the decimal mark "${decimal}", "${group}" groups thousands`;
  }
  if (fraction !== undefined && /[1-9]/.test(fraction)) {
    return `has a fraction (decimal mark "${decimal}"): quantities are whole`;
  }
  return Number(whole.replaceAll(group, ''));
}
