/**
 * The files the profile suggestion is measured on (bench/suggest.ts), each with the columns its
 * profile reads: the SKU column and the quantity column (or the quantity columns a `spread`
 * lists). The right answer is the file's profile in examples/profiles/ (or, for the layouts that
 * test/inventory/exportProfiles.test.ts writes, the profile that test reads them with; for the
 * third round of real files, their README's).
 *
 * `heldOut` files were set aside before the inference was written or tuned: its rules and word
 * lists were built looking only at the other files (and at what ERPs are generally known to
 * write), and the figure on the held-out files is the one that says how it does on a file it has
 * not seen. Chosen so that no held-out file shares its layout with a tuned one: WooCommerce and
 * the five files of the third round (OpenBoxes, OroCommerce, Open Source Point of Sale,
 * Shopware 5, Snipe-IT).
 */

/** A column as a case names it: a header name, or a 1-based position (a file without a header). */
export type CaseColumn = string | number;

export interface SuggestCase {
  /** The file's name (it decides the format by its extension). */
  readonly name: string;
  /** Where its bytes come from: a file of test/fixtures/real/, one of the project's own, or a text written here. */
  readonly source:
    | { readonly fixture: string }
    | { readonly project: string }
    | { readonly text: string };
  readonly sku: CaseColumn;
  /** The quantity column; several: the columns of a one-column-per-location layout. */
  readonly quantity: CaseColumn | readonly CaseColumn[];
  readonly heldOut: boolean;
  /** Where the right answer comes from. */
  readonly answer: string;
}

const real = (
  name: string,
  sku: CaseColumn,
  quantity: CaseColumn | readonly CaseColumn[],
  heldOut: boolean,
  answer: string,
): SuggestCase => ({ name, source: { fixture: name }, sku, quantity, heldOut, answer });

/** Shopify's inventory export and legacy product export, Odoo's quant export, as written by exportProfiles.test.ts. */
const SHOPIFY_INVENTORY = [
  'Handle,Title,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Option3 Name,Option3 Value,SKU,HS Code,COO,Location,Bin name,Incoming (not editable),Unavailable (not editable),Committed (not editable),Available (not editable),On hand (current),On hand (new)',
  'lamp,Lamp,Size,S,,,,,LAMP-S,,,Shop location,,0,0,1,4,5,',
  'lamp,Lamp,Size,S,,,,,LAMP-S,,,Back room,,0,0,0,2,2,',
  'lamp,Lamp,Size,M,,,,,LAMP-M,,,Shop location,,0,0,0,not stocked,not stocked,',
  'lamp,Lamp,Size,M,,,,,LAMP-M,,,Warehouse,,0,0,0,7,7,',
].join('\n');
const SHOPIFY_PRODUCTS = [
  'Handle,Title,Variant SKU,Variant Inventory Tracker,Inventory Available: Shop location,Inventory Available: Warehouse,Variant Price',
  'lamp,Lamp,LAMP-S,shopify,3,not stocked,25.00',
  'lamp,,LAMP-M,shopify,0,12,25.00',
].join('\n');
const ODOO_QUANT = [
  'Product,Location,Lot/Serial Number,Quantity,Reserved Quantity,Unit of Measure',
  'FURN_7800,WH/Stock,LOT-1,10.0,2.0,Units',
  'FURN_7800,WH/Stock,LOT-2,5.0,,Units',
  'FURN_8888,WH/Stock,LOT-3,3.5,1.0,kg',
].join('\n');

export const SUGGEST_CASES: readonly SuggestCase[] = [
  real('idempiere-ExampleInventory.csv', 3, 7, false, 'examples/profiles/idempiere.json'),
  real('magento-export_full.csv', 'sku', 'quantity', false, 'examples/profiles/magento.json'),
  real('magento-stock_sources.csv', 'sku', 'quantity', false, 'examples/profiles/magento.json'),
  real(
    'odoo-oca-stock_inventory_line.csv',
    'code',
    'quantity',
    false,
    'examples/profiles/odoo.json',
  ),
  real(
    'prestashop-combinations_import.csv',
    'Reference',
    'Quantity',
    false,
    'examples/profiles/prestashop.json',
  ),
  real(
    'prestashop-products_import.csv',
    'Reference #',
    'Quantity',
    false,
    'examples/profiles/prestashop.json',
  ),
  {
    name: 'inventory_export_1.csv',
    source: { text: `${SHOPIFY_INVENTORY}\n` },
    sku: 'SKU',
    quantity: 'Available (not editable)',
    heldOut: false,
    answer: 'examples/profiles/shopify.json',
  },
  {
    name: 'products_export_1.csv',
    source: { text: `${SHOPIFY_PRODUCTS}\n` },
    sku: 'Variant SKU',
    quantity: ['Inventory Available: Shop location', 'Inventory Available: Warehouse'],
    heldOut: false,
    answer: 'examples/profiles/shopify.json',
  },
  {
    name: 'stock.quant.csv',
    source: { text: `${ODOO_QUANT}\n` },
    sku: 'Product',
    quantity: 'Quantity',
    heldOut: false,
    answer: 'test/inventory/exportProfiles.test.ts',
  },
  // The ERP exports of the project's docs (examples/erp/): not set aside, looked at only once
  // the inference was built and measured.
  ...(
    [
      ['LAGER_20240501.TXT', 'Artikelnr', 'Menge'],
      ['items-20240501.txt', 'Item No.', 'Available'],
      ['stock-DC-LON-20240501.xlsx', 'Item', 'Qty'],
    ] as const
  ).map(
    ([name, sku, quantity]): SuggestCase => ({
      name,
      source: { project: `examples/erp/${name}` },
      sku,
      quantity,
      heldOut: false,
      answer: 'examples/erp/profiles.json',
    }),
  ),
  real('woocommerce-sample.csv', 'SKU', 'Stock', true, 'examples/profiles/woocommerce.json'),
  real(
    'openboxes-mainWarehouseInventory.csv',
    'Product code',
    'Physical QOH',
    true,
    'test/fixtures/real/README.md (OpenBoxes)',
  ),
  real('orocommerce-C1.csv', 'SKU', 'Quantity', true, 'test/fixtures/real/README.md (OroCommerce)'),
  real(
    'ospos-import_items.csv',
    'Barcode',
    'quantity1',
    true,
    'test/fixtures/real/README.md (Open Source Point of Sale)',
  ),
  real(
    'shopware-ArticleInStockImport.csv',
    'ordernumber',
    'instock',
    true,
    'test/fixtures/real/README.md (Shopware 5)',
  ),
  real(
    'snipeit-consumables-sample.csv',
    'Item Number',
    'QTY',
    true,
    'test/fixtures/real/README.md (Snipe-IT)',
  ),
];
