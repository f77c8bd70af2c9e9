import type { ProductImage } from '../../domain/catalogue.ts';

/**
 * Pure checks of the values of a products file's row (docs/products.md): amounts and percents,
 * currencies, tax rate ids, texts and images. Each returns the value as the portal takes it, or
 * the reason it is bad; none throws.
 */

export type ValueResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: string };

const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/** A cell with nothing in it: absent, null, or only spaces. */
export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && !value.trim());
}

/** Optional text: trimmed; a blank cell is undefined; a number is its decimal text. */
export function optionalText(value: unknown): ValueResult<string | undefined> {
  if (isBlank(value)) return { ok: true, value: undefined };
  if (typeof value === 'number' && Number.isFinite(value))
    return { ok: true, value: String(value) };
  if (typeof value !== 'string') return fail('must be text');
  return { ok: true, value: value.trim() };
}

/**
 * An amount or a percent, as the portal takes it: a decimal with two places ("19.90"). Accepted:
 * a number (a JSON or worksheet number) or text with at most two decimal places, written with the
 * profile's decimal mark (`.` unless it says `,`), thousands grouped by threes with the other
 * mark; never negative.
 */
export function twoPlaces(value: unknown, decimal: '.' | ',' = '.'): ValueResult<string> {
  const bad = `not a decimal with at most two places (decimal mark "${decimal}")`;
  if (isBlank(value)) return fail('empty');
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return fail(bad);
    const cents = Math.round(value * 100);
    if (Math.abs(value * 100 - cents) > 1e-6 || !Number.isSafeInteger(cents)) return fail(bad);
    return {
      ok: true,
      value: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
    };
  }
  if (typeof value !== 'string') return fail(bad);
  const text = value.trim();
  const group = decimal === '.' ? ',' : '.';
  const mark = decimal === '.' ? '\\.' : ',';
  const shape = new RegExp(`^(\\d{1,3}(?:\\${group}\\d{3})+|\\d+)(?:${mark}(\\d{0,2}))?$`);
  const m = shape.exec(text);
  if (m === null) return fail(bad);
  const whole = m[1]!.replaceAll(group, '').replace(/^0+(?=\d)/, '');
  return { ok: true, value: `${whole}.${(m[2] ?? '').padEnd(2, '0')}` };
}

/** A percent: two places, at most 100. */
export function percent(value: unknown, decimal: '.' | ',' = '.'): ValueResult<string> {
  const d = twoPlaces(value, decimal);
  if (!d.ok) return d;
  return Number(d.value) > 100 ? fail('a percent above 100') : d;
}

/** A currency: three letters (`gbp` is taken as `GBP`). */
export function currency(value: unknown): ValueResult<string> {
  if (isBlank(value)) return fail('a price needs its three-letter currency');
  if (typeof value !== 'string' || !/^[A-Za-z]{3}$/.test(value.trim())) {
    return fail('not a three-letter currency code');
  }
  return { ok: true, value: value.trim().toUpperCase() };
}

/** A tax rate id: a whole number (text of digits, or a number). */
export function taxRateId(value: unknown): ValueResult<number> {
  if (isBlank(value)) return fail('a price needs its tax rate id');
  const n =
    typeof value === 'string' ? (/^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return fail('not a tax rate id');
  return { ok: true, value: n };
}

/** An http(s) URL, as the portal needs an image's source. */
function imageUrl(text: string): ValueResult<string> {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return { ok: true, value: text };
  } catch {
    // not a URL
  }
  return fail(`"${text.length > 100 ? `${text.slice(0, 100)}…` : text}" is not an http(s) URL`);
}

/**
 * The images of a row: text of URLs separated by `|` or white space, or (a JSON item) an array of
 * URLs or of the API's `{url, type, is_primary}`. The first is the primary one unless an item
 * says which; `type` is the item's, else the row's `image_type`, else `defaultType` (IMAGE_TYPE).
 */
export function images(
  value: unknown,
  rowType: string | undefined,
  defaultType: string,
): ValueResult<ProductImage[] | undefined> {
  if (isBlank(value)) return { ok: true, value: undefined };
  const type = rowType ?? defaultType;
  let items: Array<{ url: unknown; type?: unknown; is_primary?: unknown }>;
  if (typeof value === 'string') {
    items = value
      .split(/[|\s]+/)
      .filter((u) => u !== '')
      .map((url) => ({ url }));
  } else if (Array.isArray(value)) {
    items = value.map((v) => (v !== null && typeof v === 'object' ? v : { url: v }));
  } else {
    return fail('must be URLs separated by | or spaces');
  }
  const marked = items.some((i) => i.is_primary === true);
  const out: ProductImage[] = [];
  for (const [i, item] of items.entries()) {
    if (typeof item.url !== 'string') return fail('an image without a URL');
    const url = imageUrl(item.url.trim());
    if (!url.ok) return url;
    const own = typeof item.type === 'string' && item.type.trim() !== '' ? item.type.trim() : type;
    out.push({
      url: url.value,
      type: own,
      is_primary: marked ? item.is_primary === true : i === 0,
    });
  }
  return { ok: true, value: out.length > 0 ? out : undefined };
}
