/**
 * suggestProfile on real files of every format (src/inventory/suggest/suggestProfile.ts): the
 * head read by the format's reader, the profile recognised or inferred, the first rows read with
 * it by the same collector ingestion uses — or, where it needs fields this version cannot read,
 * shown as its cells, not read. Nothing is written.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { suggestProfile } from '../../src/inventory/suggest/suggestProfile.ts';
import { tempFolder, utf16le } from './formats/helpers.ts';

const dir = tempFolder('suggest');
const fixtures = new URL('../fixtures/real/', import.meta.url).pathname;

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const suggest = (path: string, fileName?: string) =>
  suggestProfile(path, { maxSkuLength: 64, ...(fileName === undefined ? {} : { fileName }) });

describe('a profile suggested for a file', () => {
  it('Windows-1252 text with a title, semicolons and decimal commas: the rows read with it', async () => {
    const path = file(
      'LAGER_20240501.TXT',
      Buffer.from(
        'Lagerbestand zum 01.05.2024\r\nArtikelnr;Lager;Menge;Bezeichnung\r\n' +
          'SKU-1;DC-LON;1.234,00;Schraube M4\r\nSKU-2;DC-LON;3-;Mutter\r\n' +
          'SKU-3;DC-MAN;12;Gr\xf6\xdfe\r\nSKU-4;DC-MAN;viele;Scheibe\r\n',
        'latin1',
      ),
    );
    const before = readdirSync(dir);
    const mtime = statSync(path).mtimeMs;
    const s = await suggest(path);
    expect(s.readable).toBe(true);
    expect(s.profile).toEqual({
      match: 'LAGER_*.TXT',
      kind: 'dc',
      headerLine: 2,
      columns: { sku: 'Artikelnr', distribution_centre_code: 'Lager', stock_quantity: 'Menge' },
      decimal: ',',
      negative: 'zero',
    });
    expect(s.rows).toEqual([
      { line: 3, outcome: 'accepted', key: 'dc:DC-LON:SKU-1', quantity: 1234 },
      { line: 4, outcome: 'accepted', key: 'dc:DC-LON:SKU-2', quantity: 0 },
      { line: 5, outcome: 'accepted', key: 'dc:DC-MAN:SKU-3', quantity: 12 },
      {
        line: 6,
        outcome: 'rejected',
        key: 'dc:DC-MAN:SKU-4',
        reason: 'stock_quantity not a whole number ≥ 0 ("viele")',
      },
    ]);
    expect(s.notes.join('\n')).toContain('Could not tell what the quantity text "viele"');
    // It writes nothing: the folder holds what it held, the file is untouched.
    expect(readdirSync(dir)).toEqual(before);
    expect(statSync(path).mtimeMs).toBe(mtime);
  });

  it("Excel's Unicode text (UTF-16LE, TABs): read in its encoding", async () => {
    const path = file(
      'export.txt',
      utf16le('Item\tAvailable\tName\r\nA-1\t5\tSchraube\r\nA-2\t0\tÖse\r\n'),
    );
    const s = await suggest(path);
    expect(s.profile).toEqual({
      match: 'export.txt',
      kind: 'factory',
      columns: { sku: 'Item', stock_quantity: 'Available' },
    });
    expect(s.rows.map((r) => [r.key, r.quantity])).toEqual([
      ['factory:A-1', 5],
      ['factory:A-2', 0],
    ]);
  });

  it('a workbook: its first sheet read as the profile reads it', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Stock');
    ws.addRow(['SKU', 'Qty', 'Status']);
    ws.addRow(['A-1', 5, 'active']);
    ws.addRow(['A-2', 7, 'discontinued']);
    ws.addRow(['A-3', -1, 'active']);
    const path = join(dir, 'stock.xlsx');
    await wb.xlsx.writeFile(path);
    const s = await suggest(path);
    expect(s.profile).toEqual({
      match: 'stock.xlsx',
      kind: 'factory',
      columns: { sku: 'SKU', stock_quantity: 'Qty' },
      negative: 'zero',
      // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
      when: [{ column: 'Status', equals: ['discontinued'], then: 'zero' }],
    });
    expect(s.rows).toEqual([
      { line: 2, outcome: 'accepted', key: 'factory:A-1', quantity: 5 },
      { line: 3, outcome: 'accepted', key: 'factory:A-2', quantity: 0 },
      { line: 4, outcome: 'accepted', key: 'factory:A-3', quantity: 0 },
    ]);
  });

  it('a workbook whose stock is on its second sheet under a header over two rows: its rows read', async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Cover').addRow(['Monthly stock report']);
    const ws = wb.addWorksheet('Stock');
    ws.addRow(['Stock per warehouse, May 2024']);
    ws.addRow([]);
    ws.addRow(['Item', 'Description', 'On hand']);
    ws.addRow([null, null, 'London', 'Berlin']);
    ws.addRow(['0032', 'Screw', 5, 7]);
    ws.addRow(['0033', 'Nut', 12, 0]);
    const path = join(dir, 'report-2024-05.xlsx');
    await wb.xlsx.writeFile(path);
    const s = await suggest(path);
    expect(s.readable).toBe(true);
    expect(s.profile).toEqual({
      match: 'report-*.xlsx',
      kind: 'dc',
      sheet: 'Stock',
      headerLine: 4,
      columns: { sku: { letter: 'A' } },
      spread: { London: 'London', Berlin: 'Berlin' },
    });
    expect(s.rows).toMatchObject([
      { line: 5, outcome: 'accepted', key: 'dc:London:0032', quantity: 5 },
      { line: 5, outcome: 'accepted', key: 'dc:Berlin:0032', quantity: 7 },
      { line: 6, outcome: 'accepted', key: 'dc:London:0033', quantity: 12 },
      { line: 6, outcome: 'accepted', key: 'dc:Berlin:0033', quantity: 0 },
    ]);
  });

  it('JSON and JSON Lines: keys as columns, rows read', async () => {
    const json = file(
      'items.json',
      JSON.stringify([
        { Article: 'A-1', Available: 5, Warehouse: 'North' },
        { Article: 'A-2', Available: '2', Warehouse: 'South' },
      ]),
    );
    const s = await suggest(json);
    expect(s.profile).toMatchObject({
      kind: 'dc',
      columns: {
        sku: 'article',
        distribution_centre_code: 'warehouse',
        stock_quantity: 'available',
      },
    });
    expect(s.rows.map((r) => r.key)).toEqual(['dc:North:A-1', 'dc:South:A-2']);
    const jsonl = file(
      'confirmations.jsonl',
      '{"Order":"1001","Carrier":"DHL","Tracking":"JD01"}\n{"Order":"1002","Carrier":"UPS","Tracking":"1Z9"}\n',
    );
    const c = await suggest(jsonl);
    expect(c.profile).toMatchObject({ kind: 'confirmations' });
    expect(c.rows).toEqual([
      { line: 1, outcome: 'accepted', key: 'shipment:1001', confirmation: 'shipped, DHL JD01' },
      { line: 2, outcome: 'accepted', key: 'shipment:1002', confirmation: 'shipped, UPS 1Z9' },
    ]);
  });

  it("a known system's export: its shipped profile, the match fitted to the file's name, each row's fate", async () => {
    const path = join(fixtures, 'magento-export_full.csv');
    const s = await suggest(path, 'sources_2024-05-01.csv');
    expect(s.profile).toEqual({
      match: 'sources_*.csv',
      columns: { distribution_centre_code: 'source_code', sku: 'sku', stock_quantity: 'quantity' },
      fractions: 'floor',
      duplicates: 'sum',
      when: [
        // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
        { column: 'source_code', equals: ['eu-disabled'], then: 'skip' },
        // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
        { column: 'status', equals: ['0'], then: 'zero' },
      ],
    });
    expect(s.rows).toEqual([
      { line: 2, outcome: 'accepted', key: 'dc:eu-1:SKU-1', quantity: 5 },
      { line: 3, outcome: 'accepted', key: 'dc:eu-2:SKU-1', quantity: 3 },
      { line: 4, outcome: 'accepted', key: 'dc:eu-3:SKU-1', quantity: 0 },
      { line: 5, outcome: 'skipped' },
      { line: 6, outcome: 'accepted', key: 'dc:us-1:SKU-2', quantity: 5 },
      { line: 7, outcome: 'accepted', key: 'dc:eu-2:SKU-3', quantity: 0 },
    ]);
    expect(s.notes[0]).toMatch(/^Recognised by its header as Magento/);
    // Rows a profile keeps, and rows of one key superseded by a later one.
    const woo = await suggest(join(fixtures, 'woocommerce-sample.csv'));
    expect(woo.rows.slice(0, 3)).toEqual([
      { line: 2, outcome: 'accepted', key: 'factory:WOOLOGO', quantity: 5 },
      { line: 3, outcome: 'kept' },
      { line: 4, outcome: 'skipped' },
    ]);
  });

  it('a known export whose profile uses expressions: recognised, its rows read with them', async () => {
    const path = file(
      'inventory-levels.csv',
      'SKU,Product,Inventory Status,Quantity,Unit\nP-1,Tag,In Stock,4,liter\nP-2,Tag,Out of Stock,2,\n',
    );
    const s = await suggest(path);
    expect(s.notes[0]).toMatch(/^Recognised by its header as OroCommerce/);
    // P-2 has no unit: OroCommerce's profile rejects it (the quantity may not be in liters).
    expect(s.rows).toMatchObject([
      { line: 2, outcome: 'accepted', key: 'factory:P-1', quantity: 4 },
      { line: 3, outcome: 'rejected', key: 'factory:P-2' },
    ]);
  });

  it('none for a file that cannot be read as its format, or of no inbox format, saying why', async () => {
    const broken = await suggest(file('broken.xlsx', 'not a zip at all'));
    expect(broken).toMatchObject({ readable: false, profile: null, rows: [] });
    expect(broken.notes[0]).toMatch(
      /^The file cannot be read: not a readable \.xlsx workbook: not a zip/,
    );
    const other = await suggest(file('stock.pdf', '%PDF'));
    expect(other).toMatchObject({ readable: false, profile: null });
    expect(other.notes[0]).toMatch(/unsupported file extension/);
    const quotes = await suggest(file('quotes.csv', 'sku,qty\n"A-1,5\n'));
    expect(quotes.readable).toBe(false);
    expect(quotes.notes[0]).toMatch(/not readable as delimited text/);
  });

  it('reads only the head of a large file', async () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => `SKU-${i},${i % 50}`).join('\n');
    const path = file('big.csv', `sku,qty\n${rows}\n`);
    const s = await suggest(path);
    expect(s.rows).toHaveLength(10);
    expect(s.rows.at(-1)).toEqual({
      line: 11,
      outcome: 'accepted',
      key: 'factory:SKU-9',
      quantity: 9,
    });
    expect(readFileSync(path, 'utf8').length).toBeGreaterThan(1_000_000);
  });
});
