// biome-ignore-all lint/suspicious/noThenProperty: the contract names the field `then`
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { GROUPED_PROFILE } from '../helpers/groupedProfile.ts';
import { waitUntil } from '../helpers/sandbox.ts';

/**
 * Exports only expressions and spreadsheet layouts can describe (product contract, "Any export"),
 * read by the daemon with their profiles and pushed to the simulator: a composite key, units in
 * the quantity, conditions that are not "equals", an expiry date, SKU lists rejected, the second
 * sheet under a two-row header, the last of repeated names, an empty header cell, zero-padded
 * numeric SKUs, header names in another case and script.
 */

const PROFILES = {
  profiles: [
    {
      match: 'grouped-*.xlsx',
      ...GROUPED_PROFILE,
      sheet: 'Stock',
      headerLine: 2,
      dataLine: 4,
    },
    {
      match: 'monthly-*.xlsx',
      columns: {
        sku: 'Item',
        distribution_centre_code: { letter: 'B' },
        stock_quantity: { name: 'End Stock', occurrence: 'last' },
      },
    },
    {
      match: 'lots-*.csv',
      kind: 'factory',
      columns: { sku: 'artikel', stock_quantity: 'quantità' },
      when: [
        {
          if: "row['ARTIKEL'].matches('^[^ ,]+(,[^ ,]+)+$')",
          then: 'reject',
          reason: 'the SKU cell holds a list of SKUs',
        },
        { if: "number(row['QUANTITÀ']) < 0.0", then: 'reject' },
      ],
    },
  ],
};

const SKUS = [
  'Shirt / XL',
  'Mug / Blue',
  'Mug / Red',
  'Cap / S',
  '0032',
  '1234',
  'UK 2,5 N',
  'B-1',
];

let h: Harness;

beforeAll(async () => {
  h = await startHarness('expr-exports', { products: 10 });
  const store = h.sim.store;
  const brand = store.brands.list()[0]!.name;
  for (const sku of SKUS) store.addProduct({ sku, name: sku, brand });
  store.setFactoryStock('Cap / S', 40);
  const profilesFile = join(h.box.dataDir, 'profiles.json');
  writeFileSync(profilesFile, JSON.stringify(PROFILES));
  await h.start({ INBOX_PROFILES_FILE: profilesFile, SYNC_TIMEZONE: 'Europe/Berlin' });
}, 30_000);

afterAll(async () => {
  await h?.cleanup();
});

/** Writes a file into inbox/ under a temp name, then renames it into view. */
async function drop(name: string, write: (path: string) => Promise<void> | void): Promise<void> {
  const temp = join(h.box.dataDir, 'inbox', `.${name}.tmp`);
  await write(temp);
  renameSync(temp, join(h.box.dataDir, 'inbox', name));
}

async function reportOf(name: string): Promise<Record<string, unknown>> {
  const dir = join(h.box.dataDir, 'processed');
  const file = await waitUntil(
    () => readdirSync(dir).find((f) => f.endsWith(`-${name}.report.json`)),
    { timeoutMs: 20_000, message: `the report of ${name} in processed/` },
  );
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
}

/** MM/DD/YYYY of a day `days` from now (the expiry dates of the grouped export). */
function usDate(days: number): string {
  const d = new Date(Date.now() + days * 86_400_000);
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()}`;
}

describe('exports described with expressions and layouts (real daemon)', () => {
  it('a grouped workbook: second sheet, two-row header, composite key, units, not-equals, expiry', async () => {
    await drop('grouped-1.xlsx', async (path) => {
      const wb = new ExcelJS.Workbook();
      wb.addWorksheet('Summary').addRow(['see the Stock sheet']);
      const ws = wb.addWorksheet('Stock');
      ws.addRow(['Inventory by variant']);
      ws.addRow(['Name', 'Variant Value', 'Item Type', 'Stock', 'Expiry']);
      ws.addRow(['', '', '', 'Units In Stock', '']);
      ws.mergeCells('D2:D3');
      ws.getCell('D2').value = 'Units In Stock';
      ws.addRow(['Shirt', 'XL', 'Inventory', '8,277 Unit(s)', '']);
      ws.addRow(['Shirt', '', 'Inventory', '5 Unit(s)', '']);
      ws.addRow(['Mug', 'Blue', 'Goods', '12 Unit(s)', usDate(-3)]);
      ws.addRow(['Mug', 'Red', 'Goods', '12 Unit(s)', usDate(30)]);
      ws.addRow(['Gift card', 'Any', 'Service', '1 Unit(s)', '']);
      ws.addRow(['Cap', 'S', 'Inventory', 'n/a', '']);
      await wb.xlsx.writeFile(path);
    });
    const report = await reportOf('grouped-1.xlsx');
    expect(report).toMatchObject({
      profile: 'grouped-*.xlsx',
      kind: 'factory_stock',
      rowsRead: 6,
      rowsAccepted: 3,
      skipped: 2,
      rejected: [
        {
          line: 9,
          key: 'factory:Cap / S',
          field: 'stock_quantity',
          reason:
            'the expression for stock_quantity failed at character 1: number() cannot read the text as a number (not a whole number ≥ 0)',
        },
      ],
    });
    const store = h.sim.store;
    await waitUntil(
      () =>
        store.factoryStock('Shirt / XL')?.stock_quantity === 8277 &&
        store.factoryStock('Mug / Blue')?.stock_quantity === 0 &&
        store.factoryStock('Mug / Red')?.stock_quantity === 12,
      { timeoutMs: 20_000, message: 'the portal to hold the grouped export' },
    );
    // The rejected row changed nothing.
    expect(store.factoryStock('Cap / S')?.stock_quantity).toBe(40);
  });

  it('a monthly workbook: the last of twelve End Stock columns, the centre under an empty header cell, zero-padded SKUs', async () => {
    await drop('monthly-1.xlsx', async (path) => {
      const wb = new ExcelJS.Workbook();
      const ws = wb.addWorksheet('Stock');
      ws.addRow(['Item', '', ...Array.from({ length: 12 }, () => 'End Stock')]);
      for (const [sku, dc, last] of [
        [32, 'DC-LON', 21],
        [1234, 'DC-MAN', 4],
      ] as const) {
        const row = ws.addRow([sku, dc, ...Array.from({ length: 11 }, () => 99), last]);
        row.getCell(1).numFmt = '0000';
      }
      await wb.xlsx.writeFile(path);
    });
    expect(await reportOf('monthly-1.xlsx')).toMatchObject({
      kind: 'dc_stock',
      rowsAccepted: 2,
      rejected: [],
      ignoredColumns: ['end stock'],
    });
    await waitUntil(
      () =>
        h.sim.store.dcStock('DC-LON', '0032')?.stock_quantity === 21 &&
        h.sim.store.dcStock('DC-MAN', '1234')?.stock_quantity === 4,
      { timeoutMs: 20_000, message: 'the portal to hold the monthly export' },
    );
  });

  it('a lots file: headers in another case and script, a SKU list rejected, a SKU with a comma pushed', async () => {
    await drop('lots-1.csv', (path) => {
      writeFileSync(path, 'ARTIKEL;QUANTITÀ\n"A-1,A-2,A-3";4\nUK 2,5 N;7\nB-1;-2\n');
    });
    expect(await reportOf('lots-1.csv')).toMatchObject({
      rowsRead: 3,
      rowsAccepted: 1,
      rejected: [
        { line: 2, field: '(row)', reason: 'the SKU cell holds a list of SKUs' },
        { line: 4, key: 'factory:B-1', field: '(row)', reason: "number(row['QUANTITÀ']) < 0.0" },
      ],
    });
    await waitUntil(() => h.sim.store.factoryStock('UK 2,5 N')?.stock_quantity === 7, {
      timeoutMs: 20_000,
      message: 'the portal to hold the SKU with a comma',
    });
    expect(h.sim.store.positionOfSku('A-1,A-2,A-3')).toBeUndefined();
  });
});
