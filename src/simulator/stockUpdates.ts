/**
 * Stock updates, single and bulk, for factory and DC stock. Each item is handled on its own:
 * every item ends in exactly one of `updated` or `errors`, in request order within each array.
 */
import { HttpError, invalidParameter } from './httpError.ts';
import type { StockUpdateError, StockUpdateResult } from './model.ts';
import { DISTRIBUTION_CENTRES } from './seed.ts';
import { MAX_QUANTITY } from './stockArrays.ts';
import type { SimulatorStore } from './store.ts';

export const PRODUCT_NOT_FOUND = 'Product not found';
export const DC_NOT_FOUND = 'Distribution centre not found';
export const DC_INACTIVE = 'Distribution centre is not active';
export const INVALID_QUANTITY = `The stock quantity must be an integer between 0 and ${MAX_QUANTITY}`;
export const SKU_REQUIRED = 'The sku field is required';
export const DC_REQUIRED = 'The distribution centre code field is required';
export const ITEM_NOT_OBJECT = 'Each item must be a JSON object';

export interface BulkLimits {
  maxBulkItems: number;
  bulkTooLargeStatus: 400 | 413 | 422;
}

/** Checks a bulk body: a non-empty array of at most maxBulkItems items. */
export function bulkItems(body: unknown, limits: BulkLimits): unknown[] {
  if (!Array.isArray(body))
    throw invalidParameter('body', 'The request body must be a JSON array.');
  if (body.length === 0) throw invalidParameter('body', 'The request body must not be empty.');
  if (body.length > limits.maxBulkItems) {
    throw new HttpError(
      limits.bulkTooLargeStatus,
      'too_many_items',
      `A bulk update accepts at most ${limits.maxBulkItems} items; got ${body.length}.`,
      'body',
    );
  }
  return body;
}

/**
 * With the `bulkRejectsInvalidItem` knob: a bulk body whose item fails a field check is refused
 * whole, 422 naming the item's field by its index (`3.stock_quantity`), as a framework's request
 * validation would; an unknown SKU or centre is not a field check and stays an `errors` entry.
 */
export function refuseInvalidItem(items: readonly unknown[], withDc: boolean): void {
  for (const [i, raw] of items.entries()) {
    const item =
      typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Item) : null;
    const fail = (field: string, message: string) => {
      throw new HttpError(422, 'invalid_parameter', message, field);
    };
    if (!item) fail(String(i), ITEM_NOT_OBJECT);
    if (typeof item?.sku !== 'string' || item.sku.trim() === '') fail(`${i}.sku`, SKU_REQUIRED);
    if (withDc) {
      const code = item?.distribution_centre_code;
      if (typeof code !== 'string' || code.trim() === '') {
        fail(`${i}.distribution_centre_code`, DC_REQUIRED);
      }
    }
    if (!isQuantity(item?.stock_quantity)) fail(`${i}.stock_quantity`, INVALID_QUANTITY);
  }
}

/** How a portal stores a quantity: as sent, or clamped (the `stockQuantityCap` knob). */
export interface StoreRules {
  readonly quantityCap: number | null;
}

/** The rules of the knobs now. */
export function storeRules(ctx: { knobs(): { stockQuantityCap: number | null } }): StoreRules {
  return { quantityCap: ctx.knobs().stockQuantityCap };
}

const stored = (quantity: number, rules: StoreRules) =>
  rules.quantityCap === null ? quantity : Math.min(quantity, rules.quantityCap);

function isQuantity(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_QUANTITY;
}

/** stock_quantity echoed in an error entry: the value when it is an integer, else null. */
function echoQuantity(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}

function text(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

type Item = Record<string, unknown>;

/** The checks both kinds share: an object, with a SKU, of a known product. */
type ProductCheck =
  | { readonly ok: true; readonly item: Item; readonly sku: string; readonly position: number }
  | {
      readonly ok: false;
      readonly item: Item | null;
      readonly error: string;
      readonly withQuantity: boolean;
    };

function checkProduct(store: SimulatorStore, raw: unknown): ProductCheck {
  const item =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Item) : null;
  if (!item) return { ok: false, item, error: ITEM_NOT_OBJECT, withQuantity: false };
  const sku = item.sku;
  if (typeof sku !== 'string' || sku.trim() === '') {
    return { ok: false, item, error: SKU_REQUIRED, withQuantity: true };
  }
  const position = store.positionOfSku(sku);
  if (position === undefined)
    return { ok: false, item, error: PRODUCT_NOT_FOUND, withQuantity: false };
  return { ok: true, item, sku, position };
}

/** An `errors` entry for an item (with its centre for DC stock). */
function errorEntry(
  item: Item | null,
  error: string,
  platformSku: string | null,
  withQuantity: boolean,
  withDc: boolean,
): StockUpdateError {
  return {
    ...(withDc ? { distribution_centre_code: text(item?.distribution_centre_code) } : {}),
    platform_sku: platformSku,
    sku: text(item?.sku),
    stock_quantity: withQuantity ? echoQuantity(item?.stock_quantity) : null,
    error,
  };
}

export function updateFactoryStock(
  store: SimulatorStore,
  items: unknown[],
  rules: StoreRules = { quantityCap: null },
): StockUpdateResult {
  const result: StockUpdateResult = { updated: [], errors: [] };
  for (const raw of items) {
    const c = checkProduct(store, raw);
    if (!c.ok) {
      result.errors.push(errorEntry(c.item, c.error, null, c.withQuantity, false));
      continue;
    }
    const platformSku = store.platformSkuAt(c.position);
    const quantity = c.item.stock_quantity;
    if (!isQuantity(quantity)) {
      result.errors.push(errorEntry(c.item, INVALID_QUANTITY, platformSku, true, false));
      continue;
    }
    const held = stored(quantity, rules);
    store.setFactoryQuantityAt(c.position, held);
    result.updated.push({ platform_sku: platformSku, sku: c.sku, stock_quantity: held });
  }
  return result;
}

export function updateDcStock(
  store: SimulatorStore,
  items: unknown[],
  rules: StoreRules = { quantityCap: null },
): StockUpdateResult {
  const result: StockUpdateResult = { updated: [], errors: [] };
  for (const raw of items) {
    const c = checkProduct(store, raw);
    if (!c.ok) {
      result.errors.push(errorEntry(c.item, c.error, null, c.withQuantity, true));
      continue;
    }
    const platformSku = store.platformSkuAt(c.position);
    const fail = (error: string) =>
      result.errors.push(errorEntry(c.item, error, platformSku, true, true));
    const code = c.item.distribution_centre_code;
    if (typeof code !== 'string' || code.trim() === '') {
      fail(DC_REQUIRED);
      continue;
    }
    const d = store.activeDcIndex(code);
    if (d === undefined) {
      fail(DISTRIBUTION_CENTRES.some((dc) => dc.code === code) ? DC_INACTIVE : DC_NOT_FOUND);
      continue;
    }
    const quantity = c.item.stock_quantity;
    if (!isQuantity(quantity)) {
      fail(INVALID_QUANTITY);
      continue;
    }
    const held = stored(quantity, rules);
    store.setDcQuantity(c.position, d, held);
    result.updated.push({
      distribution_centre_code: code,
      platform_sku: platformSku,
      sku: c.sku,
      stock_quantity: held,
    });
  }
  return result;
}
