/**
 * The profile suggestion's inference on hand-made heads (src/inventory/suggest/inferProfile.ts):
 * pure, a head's cells in, a profile and its notes out. Each case is a layout an ERP writes; the
 * real files are in suggestRealHeads.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { FileHead, HeadCell, HeadTable } from '../../../src/inventory/parse/head/fileHead.ts';
import { inferProfile } from '../../../src/inventory/suggest/inferProfile.ts';

/** A delimited file's head: rows of cells from line 1 (an empty row is a blank line). */
function text(rows: ReadonlyArray<readonly string[]>, delimiter = ','): FileHead {
  const lines = rows.map((r) => r.join(delimiter));
  return {
    format: 'csv',
    tables: [table(rows)],
    text: { encoding: 'utf-8', delimiter, lines },
  };
}

function table(rows: ReadonlyArray<readonly HeadCell[]>, sheet?: string): HeadTable {
  return {
    ...(sheet === undefined ? {} : { sheet }),
    rows: rows
      .map((cells, i) => ({ line: i + 1, cells }))
      .filter((r) => r.cells.some((c) => c !== undefined && String(c).trim() !== '')),
    more: false,
  };
}

const infer = (head: FileHead, name = 'stock_20240501.csv') => inferProfile(head, name);
const notes = (head: FileHead) => infer(head).notes.join('\n');

describe('the profile suggestion infers', () => {
  it('the header after title rows, and a match with the file name’s digits as *', () => {
    const head = text([
      ['Stock report 2024-05-01', '', ''],
      ['', '', ''],
      ['Item No.', 'Description', 'Qty'],
      ['A-100', 'Screw M4', '12'],
      ['A-101', 'Nut M4', '0'],
      ['A-102', 'Washer', '7'],
    ]);
    const { profile } = infer(head);
    expect(profile).toEqual({
      match: 'stock_*.csv',
      kind: 'factory',
      headerLine: 3,
      columns: { sku: 'Item No.', stock_quantity: 'Qty' },
    });
    expect(notes(head)).toContain('The header is on line 3; line 1 above it is a title, left out.');
  });

  it('the delimiter when the header line alone would tell another (a title with commas)', () => {
    const head = text(
      [
        ['Lagerbestand, Werk 1000, Stand 01.05.2024'],
        ['Artikelnr;Menge;Bezeichnung'],
        ['SKU-1;1.234,00;Schraube, verzinkt'],
        ['SKU-2;12,5;Mutter'],
        ['SKU-3;3-;Scheibe'],
      ].map((r) => r[0]!.split(';')),
      ';',
    );
    // The title line has commas only: the reader would find the header on line 2 and split it
    // at ";" itself, so no delimiter is needed; the decimal comma, the negative and the fraction are.
    expect(infer(head).profile).toEqual({
      match: 'stock_*.csv',
      kind: 'factory',
      headerLine: 2,
      columns: { sku: 'Artikelnr', stock_quantity: 'Menge' },
      decimal: ',',
      negative: 'zero',
      fractions: 'floor',
    });
    const words = notes(head);
    expect(words).toContain('decimal comma');
    expect(words).toMatch(/1 quantity is below 0 \(oversold\): offered as 0/);
    expect(words).toContain('a fraction (12,5)');
  });

  it('a delimiter the header line does not show (one column named, many in the data)', () => {
    const head: FileHead = {
      format: 'csv',
      tables: [
        table([
          ['sku|stock', ''],
          ['A-1', '5'],
          ['A-2', '6'],
          ['A-3', '7'],
        ]),
      ],
      text: { encoding: 'utf-8', delimiter: '|', lines: ['sku,stock|', 'A-1|5', 'A-2|6', 'A-3|7'] },
    };
    expect(infer(head).profile?.delimiter).toBe('|');
  });

  it('a header over two rows: the row naming more columns is the header, the others by letter, the places as a spread', () => {
    const head: FileHead = {
      format: 'xlsx',
      tables: [
        table(
          [
            ['Item', 'Description', 'On hand', undefined, undefined],
            [undefined, undefined, 'London', 'Berlin', 'Paris'],
            ['0032', 'Screw', 5, 7, 0],
            ['0033', 'Nut', 12, 0, 3],
            ['0034', 'Bolt', 1, 2, 3],
          ],
          'Stock',
        ),
      ],
    };
    const { profile, picks } = infer(head, 'stock.xlsx');
    expect(profile).toEqual({
      match: 'stock.xlsx',
      kind: 'dc',
      headerLine: 2,
      columns: { sku: { letter: 'A' } },
      spread: { London: 'London', Berlin: 'Berlin', Paris: 'Paris' },
    });
    expect(picks.sku?.label).toBe('Item');
    const words = notes(head);
    expect(words).toContain('The header spans two rows; row 2 names the columns in the profile');
    expect(words).toContain(
      'Columns A, B have no name in the header: a profile reaches them by letter.',
    );
  });

  it('notes under the header: the data starts later (dataLine)', () => {
    const head = text([
      ['SKU', 'Qty', 'Name'],
      ['(code)', '(pieces)', ''],
      ['A-1', '5', 'Screw'],
      ['A-2', '6', 'Nut'],
      ['A-3', '0', 'Bolt'],
    ]);
    const { profile } = infer(head);
    expect(profile?.dataLine).toBe(3);
    expect(profile?.headerLine).toBeUndefined();
    expect(notes(head)).toContain('The data starts on line 3');
  });

  it('one quantity column per location as a spread, and a location column as the centre', () => {
    const wide = text([
      ['Article', 'Stock London', 'Stock Berlin', 'Min Stock', 'Price'],
      ['A-1', '5', '2', '1', '9.90'],
      ['A-2', '0', '8', '1', '4.50'],
      ['A-3', '3', '3', '2', '1.20'],
    ]);
    expect(infer(wide).profile).toMatchObject({
      kind: 'dc',
      columns: { sku: 'Article' },
      spread: { 'Stock London': 'London', 'Stock Berlin': 'Berlin' },
    });
    const long = text([
      ['Warehouse', 'SKU', 'Available', 'Reserved'],
      ['LON', 'A-1', '5', '1'],
      ['BER', 'A-1', '2', '0'],
      ['LON', 'A-2', '0', '0'],
    ]);
    expect(infer(long).profile).toEqual({
      match: 'stock_*.csv',
      kind: 'dc',
      columns: { sku: 'SKU', distribution_centre_code: 'Warehouse', stock_quantity: 'Available' },
    });
    // One place only: factory stock, said so.
    const one = text([
      ['Location', 'SKU', 'Qty'],
      ['Main', 'A-1', '5'],
      ['Main', 'A-2', '2'],
    ]);
    expect(infer(one).profile?.kind).toBe('factory');
    expect(notes(one)).toContain('"Location" holds one place only (Main)');
  });

  it('status and type columns worth a when; a reserved figure taken off what is on hand', () => {
    const head = text([
      ['Type', 'SKU', 'Status', 'On hand', 'Reserved', 'Active'],
      ['simple', 'A-1', 'active', '5', '1', 'yes'],
      ['variable', 'A-2', 'discontinued', '0', '0', 'yes'],
      ['simple', 'A-3', 'active', '9', '2', 'yes'],
      ['grouped', 'A-4', 'out of stock', '4', '0', 'yes'],
    ]);
    const { profile } = infer(head);
    expect(profile?.columns).toEqual({ sku: 'SKU', stock_quantity: 'On hand' });
    expect(profile?.when).toEqual([
      // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
      { column: 'Type', equals: ['variable', 'grouped'], then: 'skip' },
      // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
      { column: 'Status', equals: ['discontinued', 'out of stock'], then: 'zero' },
      // A flag that shows only "yes" says "no" when it is off.
      // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
      { column: 'Active', equals: ['no'], then: 'zero' },
    ]);
    expect(profile?.subtract).toEqual(['Reserved']);
  });

  it('text quantities: those meaning none, those meaning unknown, empty cells, and the others noted', () => {
    const head = text([
      ['SKU', 'Stock'],
      ['A-1', '5'],
      ['A-2', 'not stocked'],
      ['A-3', 'N/A'],
      ['A-4', ''],
      ['A-5', 'call us'],
      ['A-6', '7'],
      ['A-7', '8'],
    ]);
    expect(infer(head).profile?.values).toEqual({ 'not stocked': 0, 'n/a': 'keep', '': 'keep' });
    const words = notes(head);
    expect(words).toContain('Could not tell what the quantity text "call us" in "Stock" means');
    expect(words).toContain('1 row(s) with a SKU have an empty quantity (line 5)');
  });

  it('numeric-looking SKUs as codes, not quantities: zero-padded and long digits', () => {
    const head = text([
      ['Artikel', 'EAN', 'Menge', 'Preis'],
      ['000123', '4006381333931', '12', '1.99'],
      ['000124', '4006381333948', '3', '2.49'],
      ['004567', '4006381333955', '0', '0.99'],
    ]);
    const { profile } = infer(head);
    expect(profile?.columns).toEqual({ sku: 'Artikel', stock_quantity: 'Menge' });
  });

  it('short numeric codes under a name that says so; a unit of measure is no SKU', () => {
    const head = text(
      [
        ['No.', 'Description', 'Base Unit of Measure', 'Inventory', 'Unit Cost'],
        ['1000', 'Bicycle', 'PCS', '25', '350,59'],
        ['1001', 'Touring Bicycle', 'PCS', '0', '800,12'],
        ['1100', 'Front Wheel', 'PCS', '200', '120,00'],
      ],
      ';',
    );
    expect(infer(head).profile).toEqual({
      match: 'stock_*.csv',
      kind: 'factory',
      columns: { sku: 'No.', stock_quantity: 'Inventory' },
      decimal: ',',
    });
  });

  it('headers in other scripts and cases', () => {
    for (const [sku, quantity] of [
      ['ARTIKELNUMMER', 'MENGE'],
      ['Codice Articolo', 'QUANTITÀ'],
      ['Артикул', 'Количество'],
      ['品番', '在庫数'],
      ['Référence', 'Quantité disponible'],
      ['SKU', 'Stock disponible'],
    ] as const) {
      const head = text([
        [sku, quantity, 'x'],
        ['A-1', '5', 'a'],
        ['A-2', '0', 'b'],
        ['A-3', '9', 'c'],
      ]);
      expect(infer(head).profile?.columns, `${sku} / ${quantity}`).toEqual({
        sku,
        stock_quantity: quantity,
      });
    }
  });

  it('no header: positions, said so', () => {
    const head = text([
      ['Physical', 'count for Oak', 'OAK-1', 'HQ', '0', '1', '0'],
      ['Physical', 'count for Elm', 'ELM-2', 'HQ', '1', '3', '0'],
      ['Internal', 'chair', 'CHR-3', 'HQ', '0', '2', '1'],
    ]);
    const { profile } = infer(head);
    expect(profile).toMatchObject({ headerLine: 0, columns: { sku: 3, stock_quantity: 6 } });
    expect(notes(head)).toContain('the file has no header (headerLine 0)');
  });

  it('a quantity name given twice: its last occurrence (the latest month)', () => {
    const head: FileHead = {
      format: 'xlsx',
      tables: [
        table([
          ['SKU', 'End Stock', 'End Stock', 'End Stock'],
          ['A-1', 5, 6, 7],
          ['A-2', 1, 0, 2],
          ['A-3', 9, 9, 8],
        ]),
      ],
    };
    expect(infer(head, 'monthly.xlsx').profile?.columns).toEqual({
      sku: 'SKU',
      stock_quantity: { name: 'End Stock', occurrence: 'last' },
    });
    expect(notes(head)).toContain('The header repeats "end stock" (3 times)');
  });

  it('the sheet that holds the stock, not the first', () => {
    const head: FileHead = {
      format: 'xlsx',
      tables: [
        table([['Monthly report'], ['Prepared by the warehouse']], 'Cover'),
        table(
          [
            ['SKU', 'Qty'],
            ['A-1', 5],
            ['A-2', 0],
          ],
          'Stock',
        ),
      ],
    };
    const { profile } = infer(head, 'report.xlsx');
    expect(profile).toMatchObject({
      sheet: 'Stock',
      columns: { sku: 'SKU', stock_quantity: 'Qty' },
    });
    expect(notes(head)).toContain(
      'The stock is on sheet "Stock" (the second), not on the first sheet "Cover".',
    );
  });

  it('the kind: shipment confirmations; a products file', () => {
    const confirmations = text([
      ['Order No', 'Carrier', 'Tracking Number'],
      ['1001', 'DHL', 'JD014600003'],
      ['1002', 'UPS', '1Z999AA1'],
    ]);
    expect(infer(confirmations).profile).toEqual({
      match: 'stock_*.csv',
      kind: 'confirmations',
      columns: { order_number: 'Order No', carrier: 'Carrier', tracking_number: 'Tracking Number' },
    });
    const products = text([
      ['SKU', 'Name', 'Brand', 'Description'],
      ['A-1', 'Screw M4', 'Acme', 'A screw'],
      ['A-2', 'Nut M4', 'Acme', 'A nut'],
    ]);
    expect(infer(products).profile).toMatchObject({
      kind: 'products',
      columns: { sku: 'SKU', name: 'Name' },
    });
  });

  it('JSON objects: their keys name the columns', () => {
    const head: FileHead = {
      format: 'json',
      tables: [
        {
          keys: ['article', 'name', 'available'],
          rows: [
            { line: 1, cells: ['A-1', 'Screw', 5] },
            { line: 2, cells: ['A-2', 'Nut', 0] },
          ],
          more: false,
        },
      ],
    };
    expect(infer(head, 'items.json').profile).toEqual({
      match: 'items.json',
      kind: 'factory',
      columns: { sku: 'article', stock_quantity: 'available' },
    });
  });

  it('nothing when no column looks like a SKU, saying so', () => {
    const head = text([
      ['Date', 'Amount'],
      ['2024-05-01', '12.50'],
      ['2024-05-02', '3.10'],
    ]);
    const result = infer(head);
    expect(result.profile).toBeUndefined();
    expect(result.notes.join('\n')).toMatch(/SKU/);
  });
});
