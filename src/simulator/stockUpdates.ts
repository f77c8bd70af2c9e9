/**
 * Stock updates, single and bulk, for factory and DC stock. Each item is handled on its own:
 * every item ends in exactly one of `updated` or `errors`, in request order within each array.
 */
import { HttpError, invalidParameter } from './errors.ts';
import type { StockUpdateError, StockUpdateResult } from './model.ts';
import { DISTRIBUTION_CENTRES } from './seed.ts';
import { MAX_QUANTITY, type SimulatorStore } from './store.ts';

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

export function updateFactoryStock(store: SimulatorStore, items: unknown[]): StockUpdateResult {
  const result: StockUpdateResult = { updated: [], errors: [] };
  for (const raw of items) {
    const item = (
      typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : null
    ) as Record<string, unknown> | null;
    const fail = (error: string, platformSku: string | null, withQuantity: boolean) =>
      result.errors.push({
        platform_sku: platformSku,
        sku: text(item?.sku),
        stock_quantity: withQuantity ? echoQuantity(item?.stock_quantity) : null,
        error,
      });
    if (!item) {
      fail(ITEM_NOT_OBJECT, null, false);
      continue;
    }
    const sku = item.sku;
    if (typeof sku !== 'string' || sku.trim() === '') {
      fail(SKU_REQUIRED, null, true);
      continue;
    }
    const p = store.positionOfSku(sku);
    if (p === undefined) {
      fail(PRODUCT_NOT_FOUND, null, false);
      continue;
    }
    const quantity = item.stock_quantity;
    if (!isQuantity(quantity)) {
      fail(INVALID_QUANTITY, store.platformSkuAt(p), true);
      continue;
    }
    store.setFactoryQuantityAt(p, quantity);
    result.updated.push({ platform_sku: store.platformSkuAt(p), sku, stock_quantity: quantity });
  }
  return result;
}

export function updateDcStock(store: SimulatorStore, items: unknown[]): StockUpdateResult {
  const result: StockUpdateResult = { updated: [], errors: [] };
  for (const raw of items) {
    const item = (
      typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : null
    ) as Record<string, unknown> | null;
    const fail = (error: string, platformSku: string | null, withQuantity: boolean) => {
      const entry: StockUpdateError = {
        distribution_centre_code: text(item?.distribution_centre_code),
        platform_sku: platformSku,
        sku: text(item?.sku),
        stock_quantity: withQuantity ? echoQuantity(item?.stock_quantity) : null,
        error,
      };
      result.errors.push(entry);
    };
    if (!item) {
      fail(ITEM_NOT_OBJECT, null, false);
      continue;
    }
    const sku = item.sku;
    if (typeof sku !== 'string' || sku.trim() === '') {
      fail(SKU_REQUIRED, null, true);
      continue;
    }
    const p = store.positionOfSku(sku);
    if (p === undefined) {
      fail(PRODUCT_NOT_FOUND, null, false);
      continue;
    }
    const platformSku = store.platformSkuAt(p);
    const code = item.distribution_centre_code;
    if (typeof code !== 'string' || code.trim() === '') {
      fail(DC_REQUIRED, platformSku, true);
      continue;
    }
    const d = store.activeDcIndex(code);
    if (d === undefined) {
      const exists = DISTRIBUTION_CENTRES.some((dc) => dc.code === code);
      fail(exists ? DC_INACTIVE : DC_NOT_FOUND, platformSku, true);
      continue;
    }
    const quantity = item.stock_quantity;
    if (!isQuantity(quantity)) {
      fail(INVALID_QUANTITY, platformSku, true);
      continue;
    }
    store.setDcQuantity(p, d, quantity);
    result.updated.push({
      distribution_centre_code: code,
      platform_sku: platformSku,
      sku,
      stock_quantity: quantity,
    });
  }
  return result;
}
