import type { Confirmation } from '../../domain/shipment.ts';
import { showValue } from '../parse/records.ts';
import {
  checkAction,
  checkDcCode,
  checkFlag,
  checkQuantity,
  checkSku,
  checkText,
} from './fields.ts';
import type { QuantityOptions } from './quantity.ts';

/** One field at fault in one row. */
export interface RowError {
  /**
   * The key the row names, when it could be read (`factory:SKU`, `dc:CODE:SKU`,
   * `shipment:ORDER`): a row rejected for its quantity or carrier still says whose it was, so
   * that `explain` finds it.
   */
  readonly key?: string;
  readonly field: string;
  readonly reason: string;
  /** The offending value as read (truncated for reports); absent when the field was missing. */
  readonly value?: string;
}

export interface StockRowValue {
  readonly dc: string;
  readonly sku: string;
  readonly quantity: number;
  /** Set when a negative quantity was taken as 0 (a profile's `negative: "zero"`). */
  readonly clamped?: true;
}

export type ConfirmationRowValue = Confirmation;

export type RowResult<T> =
  | { readonly ok: true; readonly row: T }
  | ({ readonly ok: false } & RowError);

export interface RowRules {
  readonly maxSkuLength: number;
  /**
   * Quantities as ERPs write them (decimal mark, negatives; see parseQuantity). Unset: whole
   * digits only, as before.
   */
  readonly quantity?: QuantityOptions;
}

function reject(
  field: string,
  reason: string,
  value: unknown,
  key?: string,
): { ok: false } & RowError {
  const shown = showValue(value);
  return {
    ok: false,
    ...(key === undefined ? {} : { key }),
    field,
    reason,
    ...(shown === undefined ? {} : { value: shown }),
  };
}

/**
 * Checks one stock row (fields keyed by normalized column name). The distribution centre's
 * existence is not checked here (that needs the portal's list); only its form.
 */
export function validateStockRow(
  kind: 'factory_stock' | 'dc_stock',
  fields: Readonly<Record<string, unknown>>,
  rules: RowRules,
): RowResult<StockRowValue> {
  let dc = '';
  if (kind === 'dc_stock') {
    const code = checkDcCode(fields.distribution_centre_code);
    if (!code.ok)
      return reject('distribution_centre_code', code.reason, fields.distribution_centre_code);
    dc = code.value;
  }
  const sku = checkSku(fields.sku, rules.maxSkuLength);
  if (!sku.ok) return reject('sku', sku.reason, fields.sku);
  const key = kind === 'dc_stock' ? `dc:${dc}:${sku.value}` : `factory:${sku.value}`;
  if (rules.quantity !== undefined) {
    const q = checkQuantity(fields.stock_quantity, rules.quantity);
    if (!q.ok) return reject('stock_quantity', q.reason, fields.stock_quantity, key);
    const row = { dc, sku: sku.value, quantity: q.value };
    return { ok: true, row: q.clamped ? { ...row, clamped: true } : row };
  }
  const quantity = checkQuantity(fields.stock_quantity);
  if (!quantity.ok) return reject('stock_quantity', quantity.reason, fields.stock_quantity, key);
  return { ok: true, row: { dc, sku: sku.value, quantity: quantity.value } };
}

/** Checks one shipment confirmation row. */
export function validateConfirmationRow(
  fields: Readonly<Record<string, unknown>>,
): RowResult<ConfirmationRowValue> {
  const order = checkText(fields.order_number);
  if (!order.ok) return reject('order_number', order.reason, fields.order_number);
  const key = `shipment:${order.value}`;
  const carrier = checkText(fields.carrier);
  if (!carrier.ok) return reject('carrier', carrier.reason, fields.carrier, key);
  const tracking = checkText(fields.tracking_number);
  if (!tracking.ok) return reject('tracking_number', tracking.reason, fields.tracking_number, key);
  const collected = checkFlag(fields.is_collected);
  if (!collected.ok) return reject('is_collected', collected.reason, fields.is_collected, key);
  const action = checkAction(fields.action);
  if (!action.ok) return reject('action', action.reason, fields.action, key);
  return {
    ok: true,
    row: {
      orderNumber: order.value,
      action: action.value,
      carrier: carrier.value,
      trackingNumber: tracking.value,
      isCollected: collected.value,
    },
  };
}
