import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import {
  dropCopies,
  EXAMPLE_PROFILES,
  exampleProfiles,
  portalHolds,
  REAL_FILES,
  reportOf,
} from '../helpers/realFiles.ts';

/**
 * The real exports of test/fixtures/real/ (Magento, WooCommerce, PrestaShop, Odoo, iDempiere),
 * each read end to end by the daemon (in this process, test/helpers/daemonHarness.ts) with its profile from
 * examples/profiles/ and pushed to the simulator; the portal's values are checked against what
 * each file means: quantities per source summed after the locations mapping, status rows,
 * fractions, parent rows and unmanaged stock, a file without a header.
 */

const FILES = [
  'magento-stock_sources.csv',
  'magento-export_full.csv',
  'woocommerce-sample.csv',
  'prestashop-products_import.csv',
  'prestashop-combinations_import.csv',
  'odoo-oca-stock_inventory_line.csv',
  'idempiere-ExampleInventory.csv',
];
const PROFILE_FILES = ['magento', 'woocommerce', 'prestashop', 'odoo', 'idempiere', 'shopify'];

/** The SKUs the files name, as products of the portal. */
const SKUS = [
  ...['sku1', 'sku2', 'sku3', 'sku4', 'SKU-1', 'SKU-2', 'SKU-3'],
  ...['WOOLOGO', 'WOOALBUM', 'WOOIDEA'],
  ...['RP-demo_1', 'RP-demo_2', 'RP-demo_3'],
  ...['RP-Shuffle-Metal', 'RP-Shuffle-Blue', 'RP-Shuffle-Pink', 'RP-Shuffle-Green'],
  ...['RP-MacBookAir80GB-1.6MHz', 'RP-MacBookAir64GB-1.8MHz'],
  ...['RP-IpodTouch8GB', 'RP-IpodTouch16GB', 'RP-IpodTouch32GB'],
  ...['CD', 'A1090', 'A1B1', '1'],
  ...['Oak', 'Elm', 'PChair'],
];

let h: Harness;

beforeAll(async () => {
  h = await startHarness('real-exports', { products: 20 });
  const store = h.sim.store;
  const brand = store.brands.list()[0]!.name;
  for (const sku of SKUS) store.addProduct({ sku, name: sku, brand });
  // What the portal holds before: a kept row (stock not managed) must leave it so.
  store.setFactoryStock('WOOALBUM', 42);
  store.setFactoryStock('PChair', 9);
  store.setDcStock('DC-MAN', 'SKU-1', 4);
  const profiles = exampleProfiles(PROFILE_FILES);
  const dataDir = h.box.dataDir;
  const profilesFile = join(dataDir, 'profiles.json');
  writeFileSync(profilesFile, JSON.stringify({ profiles }));
  const rulesFile = join(dataDir, 'stock-rules.json');
  copyFileSync(new URL('magento-stock-rules.json', EXAMPLE_PROFILES), rulesFile);
  await h.start({
    INBOX_PROFILES_FILE: profilesFile,
    STOCK_RULES_FILE: rulesFile,
    INBOX_STABILITY_MS: '50',
    LOG_LEVEL: 'info',
  });
  // Copied byte for byte (some are not UTF-8), under a temporary name, then renamed.
  dropCopies(h, REAL_FILES, FILES);
}, 30_000);

afterAll(async () => {
  await h?.cleanup();
});

const report = (name: string) => reportOf(h, name);
const factory = (sku: string) => h.sim.store.factoryStock(sku)?.stock_quantity;
const dc = (code: string, sku: string) => h.sim.store.dcStock(code, sku)?.stock_quantity;

describe('real exports through the daemon', () => {
  it('Magento sample: sources mapped to centres, fractions floored', async () => {
    expect(await report('magento-stock_sources.csv')).toMatchObject({
      profile: 'magento-*.csv',
      kind: 'dc_stock',
      rowsAccepted: 4,
      rowsRejected: 0,
      locationsMapped: 4,
    });
    await portalHolds([
      [() => dc('DC-LON', 'sku1'), 10, 'DC-LON:sku1 (10.10)'],
      [() => dc('DC-LON', 'sku2'), 10, 'DC-LON:sku2 (10.55)'],
      [() => dc('DC-LON', 'sku3'), 10, 'DC-LON:sku3'],
      [() => dc('DC-MAN', 'sku4'), 15, 'DC-MAN:sku4'],
    ]);
  });

  it('Magento export: two sources of one centre summed, status 0 offered as 0, a disabled source skipped', async () => {
    expect(await report('magento-export_full.csv')).toMatchObject({
      rowsRead: 6,
      rowsAccepted: 5,
      skipped: 1,
      summed: 1,
      rowsRejected: 0,
    });
    await portalHolds([
      [() => dc('DC-LON', 'SKU-1'), 8, 'DC-LON:SKU-1 (eu-1 5.5 + eu-2 3)'],
      [() => dc('DC-MAN', 'SKU-1'), 0, 'DC-MAN:SKU-1 (status 0)'],
      [() => dc('DC-DUB', 'SKU-2'), 5, 'DC-DUB:SKU-2'],
      [() => dc('DC-LON', 'SKU-3'), 0, 'DC-LON:SKU-3 (status 0)'],
    ]);
  });

  it('WooCommerce: parent rows skipped, unmanaged stock kept, variations without a SKU rejected', async () => {
    expect(await report('woocommerce-sample.csv')).toMatchObject({
      kind: 'factory_stock',
      rowsRead: 7,
      rowsAccepted: 1,
      skipped: 3,
      kept: 1,
      rowsRejected: 2,
      rejected: [
        { line: 6, field: 'sku', reason: 'empty' },
        { line: 7, field: 'sku', reason: 'empty' },
      ],
    });
    await portalHolds([[() => factory('WOOLOGO'), 5, 'WOOLOGO']]);
    expect(factory('WOOALBUM')).toBe(42);
  });

  it('PrestaShop: semicolons, marked column names; two combinations of one reference added up', async () => {
    expect(await report('prestashop-products_import.csv')).toMatchObject({
      delimiter: ';',
      rowsAccepted: 3,
    });
    expect(await report('prestashop-combinations_import.csv')).toMatchObject({
      rowsRead: 11,
      rowsAccepted: 11,
      summed: 2,
    });
    await portalHolds([
      [() => factory('RP-demo_1'), 160, 'RP-demo_1'],
      [() => factory('RP-demo_3'), 400, 'RP-demo_3'],
      [() => factory('RP-Shuffle-Pink'), 12, 'RP-Shuffle-Pink'],
      [() => factory('RP-MacBookAir80GB-1.6MHz'), 20, 'RP-MacBookAir80GB-1.6MHz (10 + 10)'],
      [() => factory('RP-MacBookAir64GB-1.8MHz'), 20, 'RP-MacBookAir64GB-1.8MHz (10 + 10)'],
      [() => factory('RP-IpodTouch32GB'), 10, 'RP-IpodTouch32GB'],
    ]);
  });

  it('Odoo: a row per lot', async () => {
    expect(await report('odoo-oca-stock_inventory_line.csv')).toMatchObject({ rowsAccepted: 4 });
    await portalHolds([
      [() => factory('CD'), 500, 'CD'],
      [() => factory('A1090'), 25, 'A1090'],
      [() => factory('1'), 10, '1'],
    ]);
  });

  it('iDempiere: no header row, columns by position, an internal-use row skipped', async () => {
    expect(await report('idempiere-ExampleInventory.csv')).toMatchObject({
      headerLine: 0,
      rowsRead: 3,
      rowsAccepted: 2,
      skipped: 1,
    });
    await portalHolds([
      [() => factory('Oak'), 1, 'Oak'],
      [() => factory('Elm'), 3, 'Elm'],
    ]);
    expect(factory('PChair')).toBe(9);
  });
});
