import { PRODUCT_FAMILIES, PRODUCT_FIELDS } from '../../config/profileColumns.ts';

/**
 * The kind of an inbox file, told by its columns (a CSV header, or the keys of JSON objects).
 * Column names are compared trimmed and lower-cased.
 */

export type FileKind = 'factory_stock' | 'dc_stock' | 'shipment_confirmations' | 'products';

export const KIND_COLUMNS: Readonly<
  Record<FileKind, { readonly required: readonly string[]; readonly optional: readonly string[] }>
> = {
  factory_stock: { required: ['sku', 'stock_quantity'], optional: [] },
  dc_stock: { required: ['distribution_centre_code', 'sku', 'stock_quantity'], optional: [] },
  shipment_confirmations: {
    required: ['order_number', 'carrier', 'tracking_number'],
    optional: ['is_collected', 'action'],
  },
  // Besides the column families of PRODUCT_FAMILY (price@UK, stock@DC-LON); site_pricing and
  // distribution_centre_stock are the API's arrays, in JSON items.
  products: {
    required: ['sku', 'name'],
    optional: [
      ...PRODUCT_FIELDS.filter((f) => f !== 'name'),
      'site_pricing',
      'distribution_centre_stock',
    ],
  },
};

/**
 * A products file's column families: one column per site (`price@UK`, …) or per distribution
 * centre (`stock@DC-LON`), the code after `@`; header names come lower-cased.
 */
export const PRODUCT_FAMILY = new RegExp(`^(${PRODUCT_FAMILIES.join('|')})@(.+)$`, 'i');

export const KIND_LABEL: Readonly<Record<FileKind, string>> = {
  factory_stock: 'factory stock',
  dc_stock: 'distribution-centre stock',
  shipment_confirmations: 'shipment confirmations',
  products: 'products',
};

export type KindDetection =
  | { readonly ok: true; readonly kind: FileKind; readonly ignored: string[] }
  | { readonly ok: false; readonly reason: string };

const EXPECTED =
  'expected columns sku, stock_quantity (factory stock); distribution_centre_code, sku, stock_quantity (distribution-centre stock); order_number, carrier, tracking_number (shipment confirmations); or sku, name (products)';

/**
 * Tells the kind from a full set of (normalized) column names, as in a CSV header: the kind whose
 * required columns are all present; DC stock over factory stock (it is the larger set); stock
 * and confirmation columns together are ambiguous. `sku` and `name` make a products file unless
 * the file has a stock quantity (a stock export that names its products stays a stock file).
 * Columns the kind does not use are returned as ignored.
 */
export function detectKind(columns: readonly string[]): KindDetection {
  const set = new Set(columns);
  const has = (k: FileKind) => KIND_COLUMNS[k].required.every((c) => set.has(c));
  const stock = has('dc_stock') ? 'dc_stock' : has('factory_stock') ? 'factory_stock' : undefined;
  const other: FileKind | undefined = has('shipment_confirmations')
    ? 'shipment_confirmations'
    : stock === undefined && has('products')
      ? 'products'
      : undefined;
  if (stock && other) {
    return { ok: false, reason: `ambiguous columns: both stock and shipment columns; ${EXPECTED}` };
  }
  if (other === 'shipment_confirmations' && has('products') && !set.has('stock_quantity')) {
    return {
      ok: false,
      reason: `ambiguous columns: both products and shipment columns; ${EXPECTED}`,
    };
  }
  const kind: FileKind | undefined = stock ?? other;
  if (kind === undefined) {
    return {
      ok: false,
      reason: `no columns naming a kind (found: ${listColumns(columns)}); ${EXPECTED}`,
    };
  }
  return { ok: true, kind, ignored: ignoredColumns(kind, columns) };
}

/** Most column names quoted in a reason, each cut to MAX_COLUMN_SHOWN characters. */
const MAX_COLUMNS_SHOWN = 20;
const MAX_COLUMN_SHOWN = 100;

/** Column names for a message: a header of 2 MB or 100,000 columns gives a short reason. */
function listColumns(columns: readonly string[]): string {
  if (columns.length === 0) return 'none';
  const shown = columns
    .slice(0, MAX_COLUMNS_SHOWN)
    .map((c) => (c.length > MAX_COLUMN_SHOWN ? `${c.slice(0, MAX_COLUMN_SHOWN)}…` : c));
  const more = columns.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

export function ignoredColumns(kind: FileKind, columns: Iterable<string>): string[] {
  const known = new Set([...KIND_COLUMNS[kind].required, ...KIND_COLUMNS[kind].optional]);
  return [...columns].filter(
    (c) => !known.has(c) && !(kind === 'products' && PRODUCT_FAMILY.test(c)),
  );
}

/** Keys only a product has: its name and the other fields of its creation. */
function namesProduct(key: string): boolean {
  return (
    (KIND_COLUMNS.products.optional.includes(key) || key === 'name' || PRODUCT_FAMILY.test(key)) &&
    key !== 'sku'
  );
}

/**
 * The kind one JSON object claims by its keys, for telling mixed files: any shipment column
 * makes it a confirmation, else distribution_centre_code makes it DC stock, else stock_quantity
 * makes it factory stock, else a product's own field (`name`, `brand`, `price@UK`, …) makes it a
 * product, else a lone sku claims factory stock (in a products file, it is a product without a
 * name). An object naming none claims no kind.
 */
export function objectKind(keys: readonly string[]): FileKind | undefined {
  const set = new Set(keys);
  if (set.has('order_number') || set.has('tracking_number') || set.has('carrier'))
    return 'shipment_confirmations';
  if (set.has('distribution_centre_code')) return 'dc_stock';
  if (set.has('stock_quantity')) return 'factory_stock';
  if (keys.some(namesProduct)) return 'products';
  if (set.has('sku')) return 'factory_stock';
  return undefined;
}
