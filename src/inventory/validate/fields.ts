import type { ShipmentAction } from '../../domain/shipment.ts';
import {
  MAX_QUANTITY,
  parseQuantity,
  type QuantityOptions,
  type QuantityResult,
} from './quantity.ts';

export { MAX_QUANTITY } from './quantity.ts';

/**
 * Pure checks of single field values from inbox rows and snapshot rows. Each returns the cleaned
 * value or a reason; none throws. Values arrive as strings (CSV) or as JSON values.
 */

export type FieldResult<T> = { readonly ok: true; readonly value: T } | FieldError;
export interface FieldError {
  readonly ok: false;
  readonly reason: string;
}

const fail = (reason: string): FieldError => ({ ok: false, reason });

// C0 controls, DEL, C1 controls, and U+FFFD (what invalid UTF-8 decodes to).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\ufffd]/;

/**
 * Text of an identifier: strings are trimmed; JSON integers are taken as their decimal text
 * (ERPs often emit numeric SKUs and order numbers); anything else is refused.
 */
function identifierText(value: unknown): FieldResult<string> {
  if (value === undefined || value === null) return fail('missing');
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return fail('must be text');
    return { ok: true, value: String(value) };
  }
  if (typeof value !== 'string') return fail('must be text');
  return { ok: true, value: value.trim() };
}

/** A SKU: non-empty after trimming, at most `maxLength` characters, no control characters. */
export function checkSku(value: unknown, maxLength: number): FieldResult<string> {
  const text = identifierText(value);
  if (!text.ok) return text;
  const sku = text.value;
  if (sku === '') return fail('empty');
  // Length in characters (code points); UTF-16 length is an upper bound, so count only when needed.
  if (sku.length > maxLength && [...sku].length > maxLength)
    return fail(`longer than ${maxLength} characters`);
  if (CONTROL.test(sku)) return fail('contains control characters or invalid UTF-8');
  return { ok: true, value: sku };
}

/** A distribution-centre code: non-empty after trimming, no control characters. */
export function checkDcCode(value: unknown): FieldResult<string> {
  const text = identifierText(value);
  if (!text.ok) return text;
  if (text.value === '') return fail('empty');
  if (CONTROL.test(text.value)) return fail('contains control characters or invalid UTF-8');
  return { ok: true, value: text.value };
}

const DIGITS = /^\d+$/;

/**
 * A stock quantity: a whole number from 0 to MAX_QUANTITY. Accepts a JSON integer or a string
 * of decimal digits with optional surrounding spaces ("12", " 12 "). Refuses fractions, signs,
 * exponents, hex, trailing text, empty strings and anything above MAX_QUANTITY.
 *
 * With `options` (a profile's `decimal` and `negative`, or the defaults `{}`), quantities are read
 * as ERPs write them instead: zero fractions and thousands grouped by threes are whole numbers,
 * and a negative one may be clamped to 0 (see parseQuantity).
 */
export function checkQuantity(value: unknown): FieldResult<number>;
export function checkQuantity(value: unknown, options: QuantityOptions): QuantityResult;
export function checkQuantity(
  value: unknown,
  options?: QuantityOptions,
): FieldResult<number> | QuantityResult {
  if (options !== undefined) return parseQuantity(value, options);
  if (value === undefined || value === null) return fail('missing');
  let n: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || !Number.isInteger(value)) return fail('not a whole number ≥ 0');
    n = value;
  } else if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return fail('empty');
    if (!DIGITS.test(text)) return fail('not a whole number ≥ 0');
    n = Number(text);
  } else {
    return fail('not a whole number ≥ 0');
  }
  if (n < 0) return fail('not a whole number ≥ 0');
  if (n > MAX_QUANTITY) return fail(`above ${MAX_QUANTITY}`);
  return { ok: true, value: n };
}

/** Required free text (carrier, tracking number, order number): non-empty after trimming. */
export function checkText(value: unknown, maxLength = 255): FieldResult<string> {
  const text = identifierText(value);
  if (!text.ok) return text;
  if (text.value === '') return fail('empty');
  if (text.value.length > maxLength) return fail(`longer than ${maxLength} characters`);
  if (CONTROL.test(text.value)) return fail('contains control characters or invalid UTF-8');
  return { ok: true, value: text.value };
}

const TRUE = new Set(['true', '1', 'yes', 'y']);
const FALSE = new Set(['false', '0', 'no', 'n', '']);

/**
 * `is_collected`: JSON true/false, 1/0, or the strings true/false, 1/0, yes/no, y/n in any case
 * with spaces trimmed. Missing, null or an empty string means false.
 */
export function checkFlag(value: unknown): FieldResult<boolean> {
  if (value === undefined || value === null) return { ok: true, value: false };
  if (typeof value === 'boolean') return { ok: true, value };
  if (value === 1 || value === 0) return { ok: true, value: value === 1 };
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (TRUE.has(text)) return { ok: true, value: true };
    if (FALSE.has(text)) return { ok: true, value: false };
  }
  return fail('must be true or false');
}

/** `action`: shipped (the default when missing or empty) or collected, in any case. */
export function checkAction(value: unknown): FieldResult<ShipmentAction> {
  if (value === undefined || value === null) return { ok: true, value: 'shipped' };
  if (typeof value !== 'string') return fail('must be shipped or collected');
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'shipped') return { ok: true, value: 'shipped' };
  if (text === 'collected') return { ok: true, value: 'collected' };
  return fail('must be shipped or collected');
}
