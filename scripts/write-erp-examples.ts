/**
 * Writes the sample ERP exports under examples/erp/ (run after changing them; the files are
 * committed): a semicolon Windows-1252 export with German headers and a title line, Excel's
 * "Unicode text" (UTF-16LE with BOM and TABs), and a workbook with its header on row 3 — each
 * read with a profile of examples/erp/profiles.json (test/inventory/formats/examples.test.ts).
 */
import { writeFileSync } from 'node:fs';
import ExcelJS from 'exceljs';

const dir = new URL('../examples/erp/', import.meta.url);

/** Windows-1252 bytes of a text made of Latin-1 characters (the umlauts and ß here). */
const cp1252 = (text: string) => Buffer.from(text, 'latin1');

// SAP-style: a title line, German column names, decimal commas, thousands with dots, an oversold
// item written with a trailing minus, CRLF.
writeFileSync(
  new URL('LAGER_20240501.TXT', dir),
  cp1252(
    [
      'Lagerbestand zum 01.05.2024 - Werk 1000',
      'Artikelnr;Lager;Menge;Bezeichnung;Größe',
      'SKU-0000001;DC-LON;1.234,00;Schraube M4;klein',
      'SKU-0000002;DC-LON;12;"Mutter; verzinkt";mittel',
      'SKU-0000003;DC-MAN;3-;Unterlegscheibe;groß',
      'SKU-0000004;DC-MAN;2,5;Dübel;groß',
      '',
    ].join('\r\n'),
  ),
);

// Excel's "Save as Unicode text": UTF-16LE with a BOM, TAB-separated, CRLF.
writeFileSync(
  new URL('items-20240501.txt', dir),
  Buffer.concat([
    Buffer.from([0xff, 0xfe]),
    Buffer.from(
      [
        'Item No.\tDescription\tAvailable',
        'SKU-0000001\tBolt, zinc\t120',
        'SKU-0000002\tNut “hex”\t0',
        'SKU-0000005\tWasher 10 mm\t1,500',
        '',
      ].join('\r\n'),
      'utf16le',
    ),
  ]),
);

// A workbook from a warehouse system: a title and a date above the header on row 3, shared
// strings, numbers as numbers and as text, a formula.
const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
  filename: new URL('stock-DC-LON-20240501.xlsx', dir).pathname,
  useSharedStrings: true,
});
wb.created = wb.modified = new Date(Date.UTC(2024, 4, 1));
const ws = wb.addWorksheet('Stock London');
ws.addRow(['Stock report, London']).commit();
ws.addRow(['as of', new Date(Date.UTC(2024, 4, 1))]).commit();
ws.addRow(['Item', 'Description', 'Qty']).commit();
ws.addRow(['SKU-0000001', 'Bolt', 40]).commit();
ws.addRow(['SKU-0000002', 'Nut', '7']).commit();
ws.addRow(['SKU-0000003', 'Washer', { formula: 'C4/4', result: 10 }]).commit();
await wb.commit();
console.log('wrote examples/erp/');
