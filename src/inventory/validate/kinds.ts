/**
 * The kind of an inbox file, told by its columns (a CSV header, or the keys of JSON objects).
 * Column names are compared trimmed and lower-cased.
 */

export type FileKind = 'factory_stock' | 'dc_stock' | 'shipment_confirmations';

export const KIND_COLUMNS: Readonly<
  Record<FileKind, { readonly required: readonly string[]; readonly optional: readonly string[] }>
> = {
  factory_stock: { required: ['sku', 'stock_quantity'], optional: [] },
  dc_stock: { required: ['distribution_centre_code', 'sku', 'stock_quantity'], optional: [] },
  shipment_confirmations: {
    required: ['order_number', 'carrier', 'tracking_number'],
    optional: ['is_collected', 'action'],
  },
};

export const KIND_LABEL: Readonly<Record<FileKind, string>> = {
  factory_stock: 'factory stock',
  dc_stock: 'distribution-centre stock',
  shipment_confirmations: 'shipment confirmations',
};

export type KindDetection =
  | { readonly ok: true; readonly kind: FileKind; readonly ignored: string[] }
  | { readonly ok: false; readonly reason: string };

const EXPECTED =
  'expected columns sku, stock_quantity (factory stock); distribution_centre_code, sku, stock_quantity (distribution-centre stock); or order_number, carrier, tracking_number (shipment confirmations)';

/**
 * Tells the kind from a full set of (normalized) column names, as in a CSV header: the kind whose
 * required columns are all present; DC stock over factory stock (it is the larger set); stock
 * and confirmation columns together are ambiguous. Columns the kind does not use are returned as
 * ignored.
 */
export function detectKind(columns: readonly string[]): KindDetection {
  const set = new Set(columns);
  const has = (k: FileKind) => KIND_COLUMNS[k].required.every((c) => set.has(c));
  const stock = has('dc_stock') ? 'dc_stock' : has('factory_stock') ? 'factory_stock' : undefined;
  const confirmations = has('shipment_confirmations');
  if (stock && confirmations) {
    return { ok: false, reason: `ambiguous columns: both stock and shipment columns; ${EXPECTED}` };
  }
  const kind: FileKind | undefined =
    stock ?? (confirmations ? 'shipment_confirmations' : undefined);
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
  return [...columns].filter((c) => !known.has(c));
}

/**
 * The kind one JSON object claims by its keys, for telling mixed files: any shipment column
 * makes it a confirmation, else distribution_centre_code makes it DC stock, else sku or
 * stock_quantity makes it factory stock. An object naming none claims no kind.
 */
export function objectKind(keys: readonly string[]): FileKind | undefined {
  const set = new Set(keys);
  if (set.has('order_number') || set.has('tracking_number') || set.has('carrier'))
    return 'shipment_confirmations';
  if (set.has('distribution_centre_code')) return 'dc_stock';
  if (set.has('sku') || set.has('stock_quantity')) return 'factory_stock';
  return undefined;
}
