/** Request-level checks of the single stock update bodies (bulk items are checked per item). */
import { invalidParameter } from '../httpError.ts';
import { objectBody, requiredString } from '../params.ts';
import { MAX_QUANTITY } from '../stockArrays.ts';

export function singleStockBody(body: unknown, fields: readonly string[]): Record<string, unknown> {
  const obj = objectBody(body);
  for (const field of fields) requiredString(obj, field);
  const q = obj.stock_quantity;
  if (q === undefined || q === null) {
    throw invalidParameter('stock_quantity', 'The stock_quantity field is required.');
  }
  if (typeof q !== 'number' || !Number.isInteger(q) || q < 0 || q > MAX_QUANTITY) {
    throw invalidParameter(
      'stock_quantity',
      `The stock_quantity must be an integer between 0 and ${MAX_QUANTITY}.`,
    );
  }
  return obj;
}
