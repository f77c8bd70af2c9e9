import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { partKey, relsPartOf, resolveTarget } from '../../../src/inventory/parse/workbook/opc.ts';
import { isDateFormat } from '../../../src/inventory/parse/workbook/styles.ts';
import { SharedStringsTable } from '../../../src/state/staging/sharedStringsTable.ts';
import { readXlsxFile, records, tempFolder } from './helpers.ts';
import { relsXml, sharedStringsXml, sheetXml, workbookXml, zip } from './zip.ts';

const dir = tempFolder('workbook-parts');

const packageRels = (target: string) =>
  relsXml([['rId1', target, 'officeDocument']]).replace('/worksheet"', '/officeDocument"');

/** A workbook as openpyxl writes it: workbook part first, absolute targets, deflated parts. */
function openpyxlLayout(): Buffer {
  return zip(
    [
      [
        '[Content_Types].xml',
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
      ],
      ['_rels/.rels', packageRels('/xl/workbook.xml')],
      ['xl/workbook.xml', workbookXml([['Stock', 'rId1']])],
      [
        'xl/_rels/workbook.xml.rels',
        relsXml([
          ['rId1', '/xl/worksheets/sheet1.xml'],
          ['rId2', '/xl/sharedStrings.xml', 'sharedStrings'],
        ]),
      ],
      ['xl/sharedStrings.xml', sharedStringsXml(['sku', 'stock_quantity', 'A-1', 'B &amp; 2'])],
      [
        'xl/worksheets/sheet1.xml',
        sheetXml([
          [1, '<c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c>'],
          [2, '<c r="A2" t="s"><v>2</v></c><c r="B2" t="n"><v>7</v></c>'],
          [3, '<c r="A3" t="s"><v>3</v></c><c r="B3"><v>12.0</v></c>'],
        ]),
      ],
    ],
    { deflate: true },
  );
}

describe('workbooks per the Open Packaging Conventions', () => {
  it('resolves part names relative and absolute, with their relationships part', () => {
    expect(resolveTarget('/xl/workbook.xml', 'worksheets/sheet1.xml')).toBe(
      '/xl/worksheets/sheet1.xml',
    );
    expect(resolveTarget('/xl/workbook.xml', '/xl/worksheets/sheet1.xml')).toBe(
      '/xl/worksheets/sheet1.xml',
    );
    expect(resolveTarget('/xl/workbook.xml', '../xl/sheet%201.xml')).toBe('/xl/sheet 1.xml');
    expect(resolveTarget('/', 'xl/workbook.xml')).toBe('/xl/workbook.xml');
    expect(resolveTarget('/xl/workbook.xml', 'https://example.com/x')).toBeUndefined();
    expect(relsPartOf('/xl/workbook.xml')).toBe('/xl/_rels/workbook.xml.rels');
    expect(partKey('/XL/Worksheets/Sheet1.xml')).toBe('xl/worksheets/sheet1.xml');
  });

  it('tells date formats from number formats', () => {
    for (const code of ['yyyy-mm-dd', 'd/m/yy h:mm', '[h]:mm:ss', '[$-409]mmm d, yyyy'])
      expect(isDateFormat(code), code).toBe(true);
    for (const code of ['General', '0.00', '#,##0 "days"', '[Red]0', '0.0E+00', '@'])
      expect(isDateFormat(code), code).toBe(false);
  });

  for (const handle of [false, true]) {
    it(`reads openpyxl's layout: workbook part first, absolute targets (${handle ? 'open file' : 'stream'})`, async () => {
      const path = join(dir, `openpyxl-${handle}.xlsx`);
      writeFileSync(path, openpyxlLayout());
      const result = await readXlsxFile(path, { handle });
      expect(records(result.events)).toEqual([
        { line: 2, sku: 'A-1', stock_quantity: 7 },
        { line: 3, sku: 'B & 2', stock_quantity: 12 },
      ]);
      expect(result.tapHash).toBe(result.fileHash);
    });
  }

  it('finds the workbook part wherever the package relationships put it, in any zip order', async () => {
    const path = join(dir, 'renamed.xlsx');
    writeFileSync(
      path,
      zip([
        [
          'Book/Sheets/data.xml',
          '<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData><x:row><x:c t="inlineStr"><x:is><x:t>sku</x:t></x:is></x:c><x:c t="inlineStr"><x:is><x:t>stock_quantity</x:t></x:is></x:c></x:row><x:row><x:c t="inlineStr"><x:is><x:r><x:t>S</x:t></x:r><x:r><x:t>1</x:t></x:r><x:rPh><x:t>ignored</x:t></x:rPh></x:is></x:c><x:c><x:v>4</x:v></x:c></x:row></x:sheetData></x:worksheet>',
        ],
        ['Book/_rels/main.xml.rels', relsXml([['s1', 'Sheets/data.xml']])],
        ['Book/main.xml', workbookXml([['Data', 's1']])],
        ['_rels/.rels', packageRels('Book/main.xml')],
      ]),
    );
    const result = await readXlsxFile(path, { handle: true });
    expect(records(result.events)).toEqual([{ line: 2, sku: 'S1', stock_quantity: 4 }]);
  });

  it('keeps shared strings past the memory bound in an on-disk table, and refuses them without one', async () => {
    const strings = Array.from({ length: 50 }, (_, i) => `SKU-${i}`);
    const rows: Array<[number, string]> = [
      [
        1,
        '<c r="A1" t="inlineStr"><is><t>sku</t></is></c><c r="B1" t="inlineStr"><is><t>stock_quantity</t></is></c>',
      ],
    ];
    // Out of order, then in order: both read the same strings back.
    const order = [...Array.from({ length: 25 }, (_, i) => 49 - i * 2), ...strings.keys()];
    for (const [i, s] of order.entries()) {
      rows.push([i + 2, `<c r="A${i + 2}" t="s"><v>${s}</v></c><c r="B${i + 2}"><v>${s}</v></c>`]);
    }
    const path = join(dir, 'many-strings.xlsx');
    writeFileSync(
      path,
      zip([
        ['xl/workbook.xml', workbookXml([['S', 'rId1']])],
        [
          'xl/_rels/workbook.xml.rels',
          relsXml([
            ['rId1', 'worksheets/sheet1.xml'],
            ['rId2', 'sharedStrings.xml', 'sharedStrings'],
          ]),
        ],
        ['xl/sharedStrings.xml', sharedStringsXml(strings)],
        ['xl/worksheets/sheet1.xml', sheetXml(rows)],
      ]),
    );
    const spills: SharedStringsTable[] = [];
    const result = await readXlsxFile(path, {
      handle: true,
      sharedStrings: { maxMemoryStrings: 4, maxMemoryChars: 1000 },
      spillStrings: () => {
        const t = SharedStringsTable.createIn(join(dir, 'scratch'));
        spills.push(t);
        return t;
      },
    });
    expect(
      records(result.events).map((r) => [
        (r as Record<string, unknown>).sku,
        (r as Record<string, unknown>).stock_quantity,
      ]),
    ).toEqual(order.map((s) => [`SKU-${s}`, s]));
    expect(spills).toHaveLength(1);
    await expect(
      readXlsxFile(path, { sharedStrings: { maxMemoryStrings: 4, maxMemoryChars: 1000 } }),
    ).rejects.toThrow(
      /^not a readable \.xlsx workbook: its shared strings take more than 4 strings/,
    );
  });

  it('reads a headerless worksheet by position (headerLine 0)', async () => {
    const path = join(dir, 'headerless.xlsx');
    writeFileSync(
      path,
      zip([
        ['xl/workbook.xml', workbookXml([['S', 'rId1']])],
        ['xl/_rels/workbook.xml.rels', relsXml([['rId1', 'worksheets/sheet1.xml']])],
        [
          'xl/worksheets/sheet1.xml',
          sheetXml([
            [1, '<c r="A1" t="inlineStr"><is><t>Oak</t></is></c><c r="C1"><v>3</v></c>'],
            [2, '<c r="A2" t="inlineStr"><is><t>Elm</t></is></c><c r="C2"><v>0</v></c>'],
          ]),
        ],
      ]),
    );
    const result = await readXlsxFile(path, { headerLine: 0 });
    expect(records(result.events)).toEqual([
      { line: 1, '1': 'Oak', '2': '', '3': 3 },
      { line: 2, '1': 'Elm', '2': '', '3': 0 },
    ]);
  });
});
