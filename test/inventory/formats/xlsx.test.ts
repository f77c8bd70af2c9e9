import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ByteTap } from '../../../src/inventory/parse/byteTap.ts';
import { FileFormatError } from '../../../src/inventory/parse/records.ts';
import { readXlsx } from '../../../src/inventory/parse/xlsx.ts';
import { columns, readXlsxFile, records, tempFolder } from './helpers.ts';
import { relsXml, sharedStringsXml, sheetXml, workbookXml, zip } from './zip.ts';

const dir = tempFolder('xlsx');

/** A workbook as exceljs's streaming writer writes it: shared strings, parts after the sheets. */
async function streamedWorkbook(path: string, sharedStrings: boolean): Promise<void> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: path,
    useSharedStrings: sharedStrings,
  });
  const ws = wb.addWorksheet('Bestand');
  ws.addRow(['Lagerbestand Mai 2024']).commit();
  ws.addRow([]).commit();
  ws.addRow(['Item', ' Qty ', 'DC', 'Note', 'Ok', 'Seen']).commit();
  ws.addRow(['SKU-1', 7.0, 'DC-LON', 'plain', true, new Date(Date.UTC(2024, 4, 1))]).commit();
  ws.addRow([
    'SKU-2',
    '12',
    'DC-LON',
    // Rich text stored inline (no shared strings) loses all but its last run in exceljs 4.4's
    // streaming reader; Excel always writes text to the shared strings.
    sharedStrings ? { richText: [{ text: 'ri' }, { text: 'ch' }] } : 'rich',
    false,
    new Date(Date.UTC(2024, 4, 1, 13, 30)),
  ]).commit();
  ws.addRow([
    4006381333931,
    { formula: 'B4*2', result: 14 },
    'DC-LON',
    { text: 'link', hyperlink: 'http://x' },
  ]).commit();
  ws.addRow([]).commit();
  ws.addRow(['SKU-4', 2.5, 'DC-LON', { formula: 'NOW()' }]).commit();
  await wb.commit();
}

describe('readXlsx', () => {
  // The workbook some tests below read (or cut short), whichever runs first.
  beforeAll(() => streamedWorkbook(join(dir, 'stock-true.xlsx'), true));

  for (const shared of [true, false]) {
    it(`reads the first worksheet with the header on row 3 (${shared ? 'shared' : 'inline'} strings)`, async () => {
      const path = join(dir, `stock-${shared}.xlsx`);
      await streamedWorkbook(path, shared);
      const result = await readXlsxFile(path, { headerLine: 3 });
      expect(result.headerRow).toBe(3);
      expect(columns(result.events)).toEqual(['item', 'qty', 'dc', 'note', 'ok', 'seen']);
      expect(records(result.events)).toEqual([
        {
          line: 4,
          item: 'SKU-1',
          qty: 7,
          dc: 'DC-LON',
          note: 'plain',
          ok: true,
          seen: '2024-05-01',
        },
        {
          line: 5,
          item: 'SKU-2',
          qty: '12',
          dc: 'DC-LON',
          note: 'rich',
          ok: false,
          seen: '2024-05-01T13:30:00.000Z',
        },
        { line: 6, item: 4006381333931, qty: 14, dc: 'DC-LON', note: 'link', ok: '', seen: '' },
        { line: 8, item: 'SKU-4', qty: 2.5, dc: 'DC-LON', note: '=NOW()', ok: '', seen: '' },
      ]);
      expect(result.tapHash).toBe(result.fileHash);
    });
  }

  it('takes the first non-blank row as the header by default, title lines included', async () => {
    const path = join(dir, 'stock-true.xlsx');
    const result = await readXlsxFile(path);
    expect(result.headerRow).toBe(1);
    expect(columns(result.events)).toEqual(['lagerbestand mai 2024']);
  });

  it('reads the first tab in the workbook order, not the first sheet in the zip', async () => {
    const wb = new ExcelJS.Workbook();
    const notes = wb.addWorksheet('Notes');
    const data = wb.addWorksheet('Data');
    notes.addRow(['not', 'this']);
    data.addRow(['sku', 'stock_quantity']);
    data.addRow(['A', 1]);
    // exceljs's workbook model has a tab order its types do not show.
    (data as unknown as { orderNo: number }).orderNo = 0;
    (notes as unknown as { orderNo: number }).orderNo = 1;
    const path = join(dir, 'tabs.xlsx');
    await wb.xlsx.writeFile(path); // Excel's layout: sheets, shared strings, workbook part last
    const result = await readXlsxFile(path);
    expect(records(result.events)).toEqual([{ line: 2, sku: 'A', stock_quantity: 1 }]);
    expect(result.tapHash).toBe(result.fileHash);
  });

  it('reads inline strings and skips a chart sheet listed first', async () => {
    const bytes = zip([
      [
        'xl/workbook.xml',
        workbookXml([
          ['Chart', 'rId1'],
          ['Stock', 'rId2'],
        ]),
      ],
      [
        'xl/_rels/workbook.xml.rels',
        relsXml([
          ['rId1', 'chartsheets/sheet1.xml'],
          ['rId2', 'worksheets/sheet1.xml'],
        ]),
      ],
      [
        'xl/worksheets/sheet1.xml',
        sheetXml([
          [
            1,
            '<c r="A1" t="inlineStr"><is><t>sku</t></is></c><c r="B1" t="inlineStr"><is><t>stock_quantity</t></is></c>',
          ],
          [
            2,
            '<c r="A2" t="inlineStr"><is><t>Ä &amp; B</t></is></c><c r="B2"><v>3</v></c><c r="D2"><v>9</v></c>',
          ],
          [3, '<c r="A3" t="inlineStr"><is><t>C</t></is></c><c r="B3" t="e"><v>#N/A</v></c>'],
        ]),
      ],
    ]);
    const path = join(dir, 'inline.xlsx');
    writeFileSync(path, bytes);
    const result = await readXlsxFile(path);
    expect(records(result.events)).toEqual([
      { line: 2, sku: 'Ä & B', stock_quantity: 3 },
      { line: 3, sku: 'C', stock_quantity: '#N/A' },
    ]);
  });

  it('reads a sheet stored after the shared strings but before the workbook part', async () => {
    // exceljs 4.4 alone throws here (it looks up the workbook part's sheet list too early).
    const bytes = zip([
      ['xl/_rels/workbook.xml.rels', relsXml([['rId1', 'worksheets/sheet1.xml']])],
      ['xl/sharedStrings.xml', sharedStringsXml(['sku', 'stock_quantity', 'A'])],
      [
        'xl/worksheets/sheet1.xml',
        sheetXml([
          [1, '<c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c>'],
          [2, '<c r="A2" t="s"><v>2</v></c><c r="B2"><v>5</v></c>'],
        ]),
      ],
      ['xl/workbook.xml', workbookXml([['Stock', 'rId1']])],
    ]);
    const path = join(dir, 'late-workbook.xlsx');
    writeFileSync(path, bytes);
    const result = await readXlsxFile(path);
    expect(records(result.events)).toEqual([{ line: 2, sku: 'A', stock_quantity: 5 }]);
    expect(result.tapHash).toBe(result.fileHash);
  });

  it('fails a file that is not a readable workbook, with a reason', async () => {
    const good = join(dir, 'stock-true.xlsx');
    const whole = readFileSync(good);
    const cases: Array<[string, Buffer]> = [
      ['text.xlsx', Buffer.from('sku,stock_quantity\nA,1\n')],
      ['empty.xlsx', Buffer.alloc(0)],
      ['truncated.xlsx', whole.subarray(0, Math.floor(whole.length / 2))],
      ['no-sheet.xlsx', zip([['readme.txt', 'hello']])],
    ];
    for (const [name, bytes] of cases) {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      const err = await readXlsxFile(path).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, name).toBeInstanceOf(FileFormatError);
      expect((err as Error).message, name).toMatch(/^not a readable \.xlsx workbook: /);
    }
  });

  it('throws a read error of the file as it is (not as a bad workbook), without waiting for ever', async () => {
    const whole = readFileSync(join(dir, 'stock-true.xlsx'));
    const source = new Readable({
      read() {
        this.push(whole.subarray(0, 2000));
        this.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
      },
    });
    const run = async () => {
      for await (const _ of readXlsx(source, new ByteTap()));
    };
    await expect(run()).rejects.toMatchObject({ code: 'EIO' });
  });

  it('fails a header naming a column twice', async () => {
    const bytes = zip([
      ['xl/workbook.xml', workbookXml([['S', 'rId1']])],
      ['xl/_rels/workbook.xml.rels', relsXml([['rId1', 'worksheets/sheet1.xml']])],
      [
        'xl/worksheets/sheet1.xml',
        sheetXml([
          [
            1,
            '<c r="A1" t="inlineStr"><is><t>SKU</t></is></c><c r="B1" t="inlineStr"><is><t>sku </t></is></c>',
          ],
        ]),
      ],
    ]);
    const path = join(dir, 'dup.xlsx');
    writeFileSync(path, bytes);
    await expect(readXlsxFile(path)).rejects.toThrow(/column "sku" appears twice/);
  });
});
