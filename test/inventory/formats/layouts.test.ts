// biome-ignore-all lint/suspicious/noThenProperty: the contract names the field `then`
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { profilesFileSchema } from '../../../src/config/profiles.ts';
import { type CollectedFile, collectFile } from '../../../src/inventory/ingest/collect.ts';
import { readPlanFor } from '../../../src/inventory/validate/readPlan.ts';
import { tempFolder } from './helpers.ts';
import { relsXml, sheetXml, workbookXml, zip } from './zip.ts';

/**
 * Spreadsheet layouts a profile describes (product contract, "Any export: expressions and
 * spreadsheet layouts"), on workbooks written by ExcelJS and, where no writer makes the case, by
 * hand: the sheet, the header row and the first data row in the sheet's own numbering, columns
 * by letter, position and occurrence, and what numeric cells become.
 */

const dir = tempFolder('layouts');

async function collect(path: string, profile: object) {
  const profiles = profilesFileSchema.parse({ profiles: [{ match: '*', ...profile }] }).profiles;
  return collectFile(createReadStream(path), {
    format: 'xlsx',
    maxSkuLength: 64,
    plan: readPlanFor(profiles, 'book.xlsx'),
    workbook: { dir: join(dir, 'scratch'), spill: noSpill },
  });
}

/** These workbooks hold a few strings: a spill of them to disk would be a fault. */
function noSpill(): never {
  throw new Error('no shared strings table expected');
}

async function read(path: string, profile: object): Promise<CollectedFile> {
  const r = await collect(path, profile);
  if (!r.ok) throw new Error(`unreadable: ${r.reason}`);
  return r;
}

const stock = (c: CollectedFile) =>
  [...c.stock.values()].map((e) => `${e.dc ? `${e.dc}/` : ''}${e.sku}=${e.quantity}`);

/**
 * A grouped export as ERPs write it: a notes sheet first, then the stock under a title, a header
 * over two merged rows, a units row, twelve `End Stock` columns (the last is the one meant), a
 * location column whose header cell is empty, and SKUs as numbers shown with zeros (`0000`).
 */
async function groupedWorkbook(path: string): Promise<void> {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Notes').addRow(['nothing here', 1]);
  const ws = wb.addWorksheet('Stock');
  ws.addRow(['Stock report March']);
  const months = Array.from({ length: 12 }, () => 'End Stock');
  ws.addRow(['Item', 'QUANTITÀ', '', ...months]);
  ws.addRow(['', 'Units', '', ...months.map((_, i) => `M${i + 1}`)]);
  ws.mergeCells('A2:A3');
  ws.addRow(['(counted at close)']);
  const rows: Array<[number, number, string, number]> = [
    [32, 5, 'DC-1', 12],
    [1234, 7, 'DC-2', 0],
  ];
  for (const [sku, qty, dc, last] of rows) {
    const row = ws.addRow([sku, qty, dc, ...Array.from({ length: 11 }, () => 99), last]);
    row.getCell(1).numFmt = '0000';
  }
  await wb.xlsx.writeFile(path);
}

describe('spreadsheet layouts (ExcelJS workbooks)', () => {
  it('the second sheet, a two-row header, data two rows under it, the last of twelve names, an empty header cell by letter, zero-padded SKUs', async () => {
    const path = join(dir, 'grouped.xlsx');
    await groupedWorkbook(path);
    const c = await read(path, {
      sheet: 'stock',
      headerLine: 2,
      dataLine: 5,
      columns: {
        sku: 'item',
        distribution_centre_code: { letter: 'C' },
        stock_quantity: { name: 'End Stock', occurrence: 'last' },
      },
    });
    expect(c.kind).toBe('dc_stock');
    expect(stock(c)).toEqual(['DC-1/0032=12', 'DC-2/1234=0']);
    expect(c).toMatchObject({ rowsRead: 2, headerRow: 2, rejected: [] });
    expect(c.ignoredColumns).toEqual(['end stock', 'quantità']);
  });

  it('the same sheet by position, its columns by position, a header name in another case', async () => {
    const path = join(dir, 'grouped.xlsx');
    await groupedWorkbook(path);
    const c = await read(path, {
      sheet: 2,
      headerLine: 2,
      dataLine: 5,
      kind: 'factory',
      columns: { sku: 1, stock_quantity: 'quantità' },
    });
    expect(stock(c)).toEqual(['0032=5', '1234=7']);
  });

  it('a sheet the workbook lacks fails the file, naming the sheets it has', async () => {
    const path = join(dir, 'grouped.xlsx');
    await groupedWorkbook(path);
    const r = await collect(path, { sheet: 'Lager' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toBe(
      'not a readable .xlsx workbook: it has no sheet named "Lager" (its sheets: "Notes", "Stock")',
    );
  });
});

const inline = (ref: string, text: string) =>
  `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const num = (ref: string, n: number, style?: number) =>
  `<c r="${ref}"${style === undefined ? '' : ` s="${style}"`}><v>${n}</v></c>`;

/** A workbook of hand-written parts: one sheet of these rows, and styles with a `0000` format. */
function handMade(path: string, rows: ReadonlyArray<readonly [number, string]>, extra = ''): void {
  const styles = `<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="0000"/></numFmts><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164"/></cellXfs></styleSheet>`;
  writeFileSync(
    path,
    zip([
      ['xl/workbook.xml', workbookXml([['Data', 'rId1']])],
      [
        'xl/_rels/workbook.xml.rels',
        relsXml([
          ['rId1', 'worksheets/sheet1.xml'],
          ['rId2', 'styles.xml', 'styles'],
        ]),
      ],
      ['xl/styles.xml', styles],
      ['xl/worksheets/sheet1.xml', sheetXml(rows).replace('</sheetData>', `</sheetData>${extra}`)],
    ]),
  );
}

describe('spreadsheet layouts (hand-made parts)', () => {
  it('headerLine and dataLine are the sheet’s own row numbers when its first rows are absent', async () => {
    const path = join(dir, 'absent.xlsx');
    // Rows 1–3 are not in the file; the header is row 4, a note row 5, data from row 7.
    handMade(path, [
      [4, inline('A4', 'SKU') + inline('B4', 'Qty')],
      [5, inline('A5', 'note: counted')],
      [7, num('A7', 32, 1) + num('B7', 3)],
      [9, inline('A9', ' B-9 ') + num('B9', 4)],
    ]);
    const c = await read(path, {
      headerLine: 4,
      dataLine: 7,
      columns: { sku: 'sku', stock_quantity: 'qty' },
    });
    expect(stock(c)).toEqual(['0032=3', 'B-9=4']);
    expect(c).toMatchObject({ headerRow: 4, rowsRead: 2 });
    expect([...c.stock.values()].map((e) => e.line)).toEqual([7, 9]);
  });

  it('a column whose header cell is empty, reached by letter, position and cell/col in expressions, also past the last header cell', async () => {
    const path = join(dir, 'empty-header.xlsx');
    handMade(path, [
      [1, inline('A1', 'Item') + inline('C1', 'Qty')],
      [2, inline('A2', 'A') + inline('B2', 'DC-1') + num('C2', 5) + num('D2', 2)],
    ]);
    const c = await read(path, {
      columns: {
        sku: 'Item',
        distribution_centre_code: { letter: 'B' },
        stock_quantity: { expr: 'number(cell.C) - number(col[4])' },
      },
    });
    expect(stock(c)).toEqual(['DC-1/A=3']);
  });

  it('a header over two merged rows: only the header row names columns, the row under it is skipped by dataLine', async () => {
    const path = join(dir, 'merged.xlsx');
    handMade(
      path,
      [
        [1, `${inline('A1', 'Article') + inline('B1', 'Stock')}<c r="C1"/>`],
        [2, `<c r="A2"/>${inline('B2', 'On hand')}${inline('C2', 'Reserved')}`],
        [3, inline('A3', 'X-1') + num('B3', 10) + num('C3', 4)],
      ],
      '<mergeCells count="2"><mergeCell ref="A1:A2"/><mergeCell ref="B1:C1"/></mergeCells>',
    );
    const c = await read(path, {
      dataLine: 3,
      columns: { sku: 'article', stock_quantity: 'stock' },
      subtract: [{ letter: 'C' }],
    });
    expect(stock(c)).toEqual(['X-1=6']);
  });
});
