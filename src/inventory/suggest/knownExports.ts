import { cellText, type HeadTable } from '../parse/head/fileHead.ts';
import { normalizeColumn } from '../parse/header.ts';

/**
 * The exports of the systems whose profiles ship with the project (examples/profiles/), each
 * told by the header names its export always has (or, without a header, by its rows), with its
 * profile as shipped. test/unit/inventory/suggestProfile.test.ts holds each profile here equal
 * to its file: a profile added there is added here.
 */
export interface KnownExport {
  readonly system: string;
  /** The shipped file and the profile's place in it. */
  readonly example: string;
  readonly index: number;
  /** Header names (as the reader folds them) that the export always has. */
  readonly signature: readonly string[];
  /** A file without a header: whether its rows are this export's. */
  readonly rowsLike?: (table: HeadTable) => boolean;
  readonly profile: Readonly<Record<string, unknown>>;
  /** The profile fitted to a file's header (a layout whose columns name its places). */
  readonly fitTo?: (header: readonly string[]) => Readonly<Record<string, unknown>>;
}

/** A row condition as a profile writes it (`then` is the contract's word). */
const cond = (column: string | number, equals: readonly string[], then: string) => ({
  column,
  equals,
  then,
});
const condIf = (expr: string, then: string, reason?: string) => ({
  if: expr,
  then,
  ...(reason === undefined ? {} : { reason }),
});

const SHOPIFY_PRODUCTS = {
  match: 'products_export*.csv',
  columns: { sku: 'Variant SKU' },
  spread: {
    'Inventory Available: Shop location': 'DC-LON',
    'Inventory Available: Warehouse': 'WH-MANCHESTER',
  },
  values: { 'not stocked': 0 },
};

export const KNOWN_EXPORTS: readonly KnownExport[] = [
  {
    system: "Shopify's inventory export",
    example: 'shopify.json',
    index: 0,
    signature: ['handle', 'sku', 'location', 'available (not editable)'],
    profile: {
      match: 'inventory_export*.csv',
      columns: {
        sku: 'SKU',
        distribution_centre_code: 'Location',
        stock_quantity: 'Available (not editable)',
      },
      values: { 'not stocked': 0 },
      duplicates: 'sum',
    },
  },
  {
    system: "Shopify's product export (one column per location)",
    example: 'shopify.json',
    index: 1,
    signature: ['handle', 'variant sku'],
    profile: SHOPIFY_PRODUCTS,
    fitTo: (header) => ({
      ...SHOPIFY_PRODUCTS,
      spread: Object.fromEntries(
        header
          .filter((h) => /^inventory available:/i.test(h.trim()))
          .map((h) => [h.trim(), h.trim().replace(/^inventory available:\s*/i, '')]),
      ),
    }),
  },
  {
    system: "WooCommerce's product CSV",
    example: 'woocommerce.json',
    index: 0,
    signature: ['type', 'sku', 'in stock?', 'stock'],
    profile: {
      match: 'woocommerce-*.csv',
      kind: 'factory',
      columns: { sku: 'SKU', stock_quantity: 'Stock' },
      when: [
        cond('Type', ['variable', 'grouped', 'external'], 'skip'),
        cond('In stock?', ['0'], 'zero'),
      ],
      values: { '': 'keep' },
    },
  },
  {
    system: "Magento's Stock Sources export (Multi-Source Inventory)",
    example: 'magento.json',
    index: 0,
    signature: ['source_code', 'sku', 'status', 'quantity'],
    profile: {
      match: 'magento-*.csv',
      columns: { distribution_centre_code: 'source_code', sku: 'sku', stock_quantity: 'quantity' },
      fractions: 'floor',
      duplicates: 'sum',
      when: [cond('source_code', ['eu-disabled'], 'skip'), cond('status', ['0'], 'zero')],
    },
  },
  {
    system: "Odoo's inventory lines (the OCA inventory import)",
    example: 'odoo.json',
    index: 0,
    signature: ['quantity', 'code', 'location', 'lot'],
    profile: {
      match: 'odoo-*.csv',
      kind: 'factory',
      columns: { sku: 'code', stock_quantity: 'quantity' },
      duplicates: 'sum',
      fractions: 'floor',
    },
  },
  {
    system: "PrestaShop's product import",
    example: 'prestashop.json',
    index: 0,
    signature: ['reference #', 'quantity', 'active (0/1)'],
    profile: {
      match: 'prestashop-products*.csv',
      kind: 'factory',
      columns: { sku: 'Reference #', stock_quantity: 'Quantity' },
      when: [cond('Active (0/1)', ['0'], 'zero')],
    },
  },
  {
    system: "PrestaShop's combinations import",
    example: 'prestashop.json',
    index: 1,
    signature: ['product id*', 'attribute (name:type:position)*', 'reference', 'quantity'],
    profile: {
      match: 'prestashop-combinations*.csv',
      kind: 'factory',
      columns: { sku: 'Reference', stock_quantity: 'Quantity' },
      duplicates: 'sum',
    },
  },
  {
    system: "iDempiere's import loader (Physical Inventory, no header)",
    example: 'idempiere.json',
    index: 0,
    signature: [],
    rowsLike: (table) =>
      table.rows.length > 0 &&
      table.rows.every((r) => r.cells.length === 8 && /\binventory$/i.test(cellText(r.cells[0]))),
    profile: {
      match: 'idempiere-*.csv',
      kind: 'factory',
      headerLine: 0,
      columns: { sku: 3, stock_quantity: 7 },
      when: [cond(1, ['Internal Use Inventory'], 'skip')],
    },
  },
  {
    system: "OpenBoxes' inventory count",
    example: 'openboxes.json',
    index: 0,
    signature: ['product code', 'lot number', 'expiration date', 'bin location', 'physical qoh'],
    profile: {
      match: 'openboxes-*.csv',
      kind: 'factory',
      columns: { sku: 'Product code', stock_quantity: 'Physical QOH' },
      duplicates: 'sum',
      when: [
        condIf(
          "row['Expiration date'] != '' && date(row['Expiration date'], 'DD/MM/YYYY') < today()",
          'zero',
        ),
      ],
    },
  },
  {
    system: 'Shopware 5 (its Import/Export plugin: article in stock)',
    example: 'shopware.json',
    index: 0,
    signature: ['ordernumber', 'instock'],
    profile: {
      match: 'shopware-*.csv',
      kind: 'factory',
      columns: { sku: 'ordernumber', stock_quantity: 'instock' },
      negative: 'zero',
      when: [cond('_supplier', ['Trusted Shops'], 'skip')],
    },
  },
  {
    system: "OroCommerce's detailed inventory levels",
    example: 'orocommerce.json',
    index: 0,
    signature: ['sku', 'product', 'inventory status', 'quantity', 'unit'],
    profile: {
      match: 'orocommerce-*.csv',
      kind: 'factory',
      columns: { sku: 'SKU', stock_quantity: 'Quantity' },
      when: [
        condIf("row['Unit'] == ''", 'reject', 'no unit: the quantity may not be in liters'),
        condIf("!(row['Unit'] in ['liter', 'liters'])", 'skip'),
        cond('Inventory Status', ['Out of Stock', 'Discontinued'], 'zero'),
      ],
      values: { '': 'keep' },
    },
  },
  {
    system: "Snipe-IT's consumables",
    example: 'snipeit.json',
    index: 0,
    signature: ['company', 'name', 'category', 'qty', 'model number', 'item number'],
    profile: {
      match: 'snipeit-*.csv',
      kind: 'factory',
      columns: { sku: 'Item Number', stock_quantity: 'QTY' },
    },
  },
  {
    system: "Open Source Point of Sale's item import",
    example: 'ospos.json',
    index: 0,
    signature: ['barcode', 'item name', 'location1', 'quantity1'],
    profile: {
      match: 'ospos-*.csv',
      columns: { sku: 'Barcode' },
      spread: { quantity1: 'DC-LON' },
      when: [
        condIf(
          "row['location1'] != '1'",
          'reject',
          'quantity1 is not the stock of location 1 (DC-LON)',
        ),
      ],
    },
  },
];

/**
 * The known export a table is, by its header (every name of a signature there; the longest
 * signature wins) or, without a header, by its rows; undefined for none.
 */
export function recognise(
  header: readonly string[] | undefined,
  table: HeadTable,
): KnownExport | undefined {
  if (header === undefined) return KNOWN_EXPORTS.find((k) => k.rowsLike?.(table) === true);
  const names = new Set(header.map(normalizeColumn));
  return KNOWN_EXPORTS.filter(
    (k) => k.signature.length > 0 && k.signature.every((s) => names.has(s)),
  ).sort((a, b) => b.signature.length - a.signature.length)[0];
}
