import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import {
  answered,
  dropBytes,
  LONG_DESCRIPTION,
  productsCsv,
  productsXlsx,
  reportOf,
} from '../helpers/productFiles.ts';
import { cp1252 } from '../inventory/formats/helpers.ts';

/**
 * New products through the daemon into the simulator (docs/products.md): a products file in each
 * format, read with and without a profile, each product created once with its brand, prices,
 * images and stock; brands created once per name; rows with bad references rejected alone.
 */

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const COLUMNS = [
  'sku',
  'name',
  'description',
  'brand',
  'images',
  'price@UK',
  'price_currency@UK',
  'tax_rate_id@UK',
  'factory_stock',
  'stock@DC-LON',
];

describe('products files', () => {
  it('in every format, with and without a profile: each product created once, its brand first, once', async () => {
    h = await startHarness('products-formats', { products: 50 });
    const profilesFile = join(h.box.dataDir, 'profiles.json');
    writeFileSync(
      profilesFile,
      JSON.stringify({
        profiles: [
          {
            match: 'artikel-*.txt',
            kind: 'products',
            encoding: 'windows-1252',
            delimiter: ';',
            decimal: ',',
            columns: {
              sku: 'Artikelnr',
              name: 'Bezeichnung',
              description: 'Beschreibung',
              brand: 'Marke',
              'price@DE': 'Preis',
              'stock@DC-LON': 'Lager London',
            },
            constants: { 'price_currency@DE': 'EUR', 'tax_rate_id@DE': 4 },
          },
        ],
      }),
    );
    const d = await h.start({ INBOX_PROFILES_FILE: profilesFile, IMAGE_TYPE: 'packshot' });
    h.drop(
      'new-products.csv',
      productsCsv(COLUMNS, [
        [
          'NEW-C1',
          'Oak chair',
          LONG_DESCRIPTION,
          'Acme',
          'https://cdn.example.com/c1a.jpg|https://cdn.example.com/c1b.jpg',
          '19.9',
          'GBP',
          '1',
          '12',
          '3',
        ],
        ['NEW-C2', 'Oak stool', 'Short.', 'Acme', '', '', '', '', '', ''],
      ]),
    );
    dropBytes(
      h.box.dataDir,
      'artikel-1.txt',
      cp1252(
        'Artikelnr;Bezeichnung;Beschreibung;Marke;Preis;Lager London\r\n' +
          `NEW-T1;Stuhl Größe L;${LONG_DESCRIPTION};acme;1.249,5;7\r\n`,
      ),
    );
    dropBytes(
      h.box.dataDir,
      'new.xlsx',
      productsXlsx(
        [
          'sku',
          'name',
          'brand',
          'price@IE',
          'price_currency@IE',
          'tax_rate_id@IE',
          'factory_stock',
        ],
        [['NEW-X1', 'Oak bench', 'Northwind', 12.5, 'EUR', 3, 4]],
      ),
    );
    h.drop(
      'new.json',
      JSON.stringify([
        {
          sku: 'NEW-J1',
          name: 'Lamp',
          description: LONG_DESCRIPTION,
          brand: 'ACME ',
          range: 'Living',
          images: [{ url: 'https://cdn.example.com/j1.jpg', is_primary: true, type: 'lifestyle' }],
          site_pricing: [
            { site_code: 'UK', price: '35.00', price_currency: 'GBP', tax_rate_id: 1 },
          ],
          distribution_centre_stock: [{ distribution_centre_code: 'DC-MAN', stock_quantity: 6 }],
          factory_stock: { stock_quantity: 40 },
        },
      ]),
    );
    h.drop(
      'new.jsonl',
      `${JSON.stringify({ sku: 'NEW-L1', name: 'Rug', brand: 'Lumen', 'stock@DC-DUB': 2 })}\n`,
    );

    const csv = await reportOf(h.box.dataDir, 'processed', 'new-products.csv', answered);
    expect(csv).toMatchObject({
      kind: 'products',
      rowsRead: 2,
      rowsAccepted: 2,
      created: 2,
      existing: 0,
      shortDescription: 1,
    });
    expect(csv.products?.rows.map((r) => [r.sku, r.outcome])).toEqual([
      ['NEW-C1', 'created'],
      ['NEW-C2', 'created'],
    ]);
    const txt = await reportOf(h.box.dataDir, 'processed', 'artikel-1.txt', answered);
    expect(txt).toMatchObject({
      profile: 'artikel-*.txt',
      encoding: 'windows-1252',
      delimiter: ';',
      created: 1,
    });
    for (const name of ['new.xlsx', 'new.json', 'new.jsonl']) {
      expect(await reportOf(h.box.dataDir, 'processed', name, answered)).toMatchObject({
        kind: 'products',
        created: 1,
        rowsRejected: 0,
      });
    }

    const store = h.sim.store;
    expect(store.product('NEW-C1')).toMatchObject({
      name: 'Oak chair',
      description: LONG_DESCRIPTION,
      // The brand as the portal spells it: the first file read created it (Acme or acme).
      brand: expect.stringMatching(/^acme$/i),
      status: 'pending',
      images: [
        { url: 'https://cdn.example.com/c1a.jpg', type: 'packshot', is_primary: true },
        { url: 'https://cdn.example.com/c1b.jpg', type: 'packshot', is_primary: false },
      ],
      site_pricing: [{ site: { code: 'UK' }, price: '19.90', price_currency: 'GBP' }],
    });
    expect(store.factoryStock('NEW-C1')?.stock_quantity).toBe(12);
    expect(store.dcStock('DC-LON', 'NEW-C1')?.stock_quantity).toBe(3);
    expect(store.product('NEW-T1')).toMatchObject({
      name: 'Stuhl Größe L',
      brand: expect.stringMatching(/^acme$/i),
      site_pricing: [{ site: { code: 'DE' }, price: '1249.50', price_currency: 'EUR' }],
    });
    expect(store.dcStock('DC-LON', 'NEW-T1')?.stock_quantity).toBe(7);
    expect(store.product('NEW-X1')).toMatchObject({
      brand: 'Northwind',
      site_pricing: [{ site: { code: 'IE' }, price: '12.50', price_currency: 'EUR' }],
    });
    expect(store.factoryStock('NEW-X1')?.stock_quantity).toBe(4);
    expect(store.product('NEW-J1')).toMatchObject({
      brand: expect.stringMatching(/^acme$/i),
      range: 'Living',
    });
    expect(store.factoryStock('NEW-J1')?.stock_quantity).toBe(40);
    expect(store.dcStock('DC-MAN', 'NEW-J1')?.stock_quantity).toBe(6);
    expect(store.dcStock('DC-DUB', 'NEW-L1')?.stock_quantity).toBe(2);

    // Acme (named as Acme, acme and "ACME ") is created once; Northwind and Lumen exist.
    const stats = h.sim.stats().byRoute;
    expect(stats['POST /brands']).toBe(1);
    expect(store.brands.list().filter((b) => b.name.toLowerCase() === 'acme')).toHaveLength(1);
    expect(stats['POST /products']).toBe(6);
    // What the portal answered is known: the stock at creation costs no push.
    expect(stats['POST /factory-stocks/bulk-update'] ?? 0).toBe(0);
    expect(stats['POST /distribution-centre-stocks/bulk-update'] ?? 0).toBe(0);
    const created = d.lines.filter((l) => l.event === 'product.created').map((l) => l.sku);
    expect(created.sort()).toEqual(['NEW-C1', 'NEW-C2', 'NEW-J1', 'NEW-L1', 'NEW-T1', 'NEW-X1']);
  });

  it('counts products the portal has as existing, never sends them again, and rejects bad rows alone', async () => {
    h = await startHarness('products-refs', { products: 50 });
    await h.start();
    h.drop('first.csv', productsCsv(['sku', 'name', 'brand'], [['NEW-1', 'Chair', 'Northwind']]));
    await reportOf(h.box.dataDir, 'processed', 'first.csv', answered);
    // The portal's product list is read once the daemon deals in products; a product made
    // elsewhere after that is not known to it until the next read.
    await h.daemon!.waitForEvent('catalogue.read');
    h.sim.store.addProduct({ sku: 'MADE-ELSEWHERE', name: 'Bench', brand: 'Northwind' });
    const columns = [
      'sku',
      'name',
      'brand',
      'price@UK',
      'price_currency@UK',
      'tax_rate_id@UK',
      'price@FR',
      'price_currency@FR',
      'tax_rate_id@FR',
      'stock@DC-XYZ',
      'stock@DC-BER',
    ];
    h.drop(
      'second.csv',
      productsCsv(columns, [
        ['NEW-1', 'Chair', 'Northwind', '', '', '', '', '', '', '', ''],
        ['MADE-ELSEWHERE', 'Bench', 'Northwind', '', '', '', '', '', '', '', ''],
        ['NEW-2', 'Table', 'Northwind', '20', 'GBP', '2', '', '', '', '', ''],
        ['NEW-FR', 'x', 'Northwind', '', '', '', '10.00', 'EUR', '1', '', ''],
        ['NEW-DC', 'x', 'Northwind', '', '', '', '', '', '', '4', ''],
        ['NEW-BER', 'x', 'Northwind', '', '', '', '', '', '', '', '4'],
        ['NEW-TAX', 'x', 'Northwind', '10', 'GBP', '99', '', '', '', '', ''],
        ['NEW-PRICE', 'x', 'Northwind', '9.999', 'GBP', '1', '', '', '', '', ''],
        ['NEW-CUR', 'x', 'Northwind', '10', '', '1', '', '', '', '', ''],
        ['NEW-NONAME', '', 'Northwind', '', '', '', '', '', '', '', ''],
        [`NEW-${'X'.repeat(70)}`, 'x', 'Northwind', '', '', '', '', '', '', '', ''],
      ]),
    );
    const report = await reportOf(h.box.dataDir, 'processed', 'second.csv', answered);
    expect(report).toMatchObject({ rowsRead: 11, rowsAccepted: 3, rowsRejected: 8 });
    expect(report.rejected.map((r) => [r.line, r.field, r.reason])).toEqual([
      [5, 'price@fr', 'FR is no site of the portal (sites: DE, IE, UK)'],
      [6, 'stock@dc-xyz', 'unknown distribution centre'],
      [7, 'stock@dc-ber', 'inactive distribution centre'],
      [8, 'tax_rate_id@uk', 'unknown tax rate id'],
      [9, 'price@uk', 'not a decimal with at most two places (decimal mark ".")'],
      [10, 'price_currency@uk', 'a price needs its three-letter currency'],
      [11, 'name', 'a product needs a name'],
      [12, 'sku', 'longer than 64 characters'],
    ]);
    // NEW-1 was known (its creation answered); MADE-ELSEWHERE was not, and the portal refused it
    // as one it has: both count as existing, and only NEW-2 is created.
    expect(report).toMatchObject({ created: 1, existing: 2 });
    expect(report.products?.existingSkus).toEqual(['NEW-1']);
    expect(report.products?.rows.map((r) => [r.sku, r.outcome])).toEqual([
      ['MADE-ELSEWHERE', 'existing'],
      ['NEW-2', 'created'],
    ]);
    const stats = h.sim.stats().byRoute;
    // first.csv: NEW-1; second.csv: MADE-ELSEWHERE (refused) and NEW-2.
    expect(stats['POST /products']).toBe(3);
    expect(stats['GET /products/:sku']).toBe(1);
    // The references were read once, for the first file.
    expect(stats['GET /sites']).toBe(1);
    expect(stats['GET /tax-rates']).toBe(1);
  });
});
