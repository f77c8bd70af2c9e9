import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { countFields, detectDelimiter } from '../../../src/inventory/parse/dialect.ts';
import { FileFormatError } from '../../../src/inventory/parse/records.ts';
import {
  bad,
  chunked,
  columns,
  cp1252,
  readDelimitedFile,
  readDelimitedStream,
  records,
  tempFolder,
  utf16le,
} from './helpers.ts';

const dir = tempFolder('delimited');

describe('delimiter detection', () => {
  it.each([
    ['sku,stock_quantity', ','],
    ['Artikelnr;Lager;Menge', ';'],
    ['Item No.\tAvailable', '\t'],
    ['sku|qty|dc', '|'],
    ['"Name; long",Menge,Lager', ','],
    ['"Name, long";Menge;Lager', ';'],
    ['a;b,c', ','], // a tie goes to ','
    ['a;b|c', ';'], // then in the order ; TAB |
    ['single', ','],
  ])('%j → %j', (line, delimiter) => {
    expect(detectDelimiter(line)).toBe(delimiter);
  });

  it('counts fields outside quotes only', () => {
    expect(countFields('"a;b";c', ';')).toBe(2);
    expect(countFields('"a""x;";c;d', ';')).toBe(3);
  });
});

describe('readDelimited on real files', () => {
  it('reads a semicolon Windows-1252 export with German headers and a title line', async () => {
    const text =
      'Lagerbestand vom 01.05.2024 – Größe in Stück\r\n' +
      'Artikelnr;Lagerort;Menge;Bezeichnung\r\n' +
      'A-1;DC-BER;12;Schäferhund „Rex“\r\n' +
      'A-2;DC-BER;1.234;"Maß; groß"\r\n';
    const bytes = cp1252(text);
    const result = await readDelimitedFile(dir, 'LAGER_1.TXT', bytes, { headerLine: 2 });
    expect(result.dialect).toEqual({ encoding: 'windows-1252', delimiter: ';', headerLine: 2 });
    expect(columns(result.events)).toEqual(['artikelnr', 'lagerort', 'menge', 'bezeichnung']);
    expect(records(result.events)).toEqual([
      {
        line: 3,
        artikelnr: 'A-1',
        lagerort: 'DC-BER',
        menge: '12',
        bezeichnung: 'Schäferhund „Rex“',
      },
      { line: 4, artikelnr: 'A-2', lagerort: 'DC-BER', menge: '1.234', bezeichnung: 'Maß; groß' },
    ]);
    expect(result.tapHash).toBe(result.fileHash);
  });

  it('finds umlauts in Windows-1252 header names', async () => {
    const bytes = cp1252('Artikelnr;Größe;Menge\nX;L;1\n');
    const result = await readDelimitedFile(dir, 'umlaut.csv', bytes);
    expect(columns(result.events)).toEqual(['artikelnr', 'größe', 'menge']);
  });

  it("reads UTF-16LE with a BOM and TABs (Excel's Unicode text)", async () => {
    const text =
      'Item No.\tAvailable\tDescription\r\nSKU-1\t5\tWürfel 😀\r\nSKU-2\t0\t"tab\tinside"\r\n';
    const bytes = utf16le(text);
    // 0x0A bytes that are not line feeds: U+0A00-range code units and 0x0A low bytes.
    const result = await readDelimitedFile(dir, 'items-1.txt', bytes);
    expect(result.dialect).toEqual({ encoding: 'utf-16le', delimiter: '\t', headerLine: 1 });
    expect(records(result.events)).toEqual([
      { line: 2, 'item no.': 'SKU-1', available: '5', description: 'Würfel 😀' },
      { line: 3, 'item no.': 'SKU-2', available: '0', description: 'tab\tinside' },
    ]);
    expect(result.tapHash).toBe(result.fileHash);
  });

  it('counts UTF-16 lines by characters, not by 0x0A bytes', async () => {
    // U+010A is 0A 01 in UTF-16LE: a 0x0A byte that is no line feed.
    const bytes = utf16le('sku\tqty\nĊ-1\t1\nĊ-2\t2\n');
    const result = await readDelimitedFile(dir, 'c.tsv', bytes);
    expect(records(result.events).map((r) => r.line)).toEqual([2, 3]);
  });

  it('reads UTF-8 with and without BOM, CRLF and LF alike', async () => {
    for (const [name, bytes] of [
      [
        'bom.csv',
        Buffer.concat([
          Buffer.from([0xef, 0xbb, 0xbf]),
          Buffer.from('sku,stock_quantity\r\nÄ,1\r\n'),
        ]),
      ],
      ['plain.CSV', Buffer.from('sku,stock_quantity\nÄ,1\n')],
    ] as const) {
      const result = await readDelimitedFile(dir, name, bytes);
      expect(result.dialect?.encoding).toBe('utf-8');
      expect(columns(result.events)).toEqual(['sku', 'stock_quantity']);
      expect(records(result.events)).toEqual([{ line: 2, sku: 'Ä', stock_quantity: '1' }]);
    }
  });

  it('keeps quoted delimiters, quotes and line breaks, and counts lines where rows start', async () => {
    const bytes = Buffer.from(
      'sku;stock_quantity;note\n"A;1";5;"say ""hi"""\n"B";6;"two\nlines"\n\n;;\nC;7;x\n',
    );
    const result = await readDelimitedFile(dir, 'q.csv', bytes);
    expect(records(result.events)).toEqual([
      { line: 2, sku: 'A;1', stock_quantity: '5', note: 'say "hi"' },
      { line: 3, sku: 'B', stock_quantity: '6', note: 'two\nlines' },
      { line: 7, sku: 'C', stock_quantity: '7', note: 'x' },
    ]);
  });

  it('takes a forced delimiter and names rows of the wrong width', async () => {
    const bytes = Buffer.from('sku|qty\nA|1\nB|2|3\nC\n');
    const result = await readDelimitedFile(dir, 'p.txt', bytes, { delimiter: '|' });
    expect(result.dialect?.delimiter).toBe('|');
    expect(records(result.events)).toEqual([{ line: 2, sku: 'A', qty: '1' }]);
    expect(bad(result.events)).toEqual([
      {
        type: 'bad',
        line: 3,
        field: '(row)',
        reason: 'has 3 fields, the header has 2',
        value: 'B|2|3',
      },
      {
        type: 'bad',
        line: 4,
        field: '(row)',
        reason: 'has 1 fields, the header has 2',
        value: 'C',
      },
    ]);
  });

  it('skips blank lines before the header and on from headerLine', async () => {
    const bytes = Buffer.from('Title\n\n  \nsku,qty\nA,1\n');
    const result = await readDelimitedFile(dir, 'blank.csv', bytes, { headerLine: 2 });
    expect(result.dialect?.headerLine).toBe(4);
    expect(records(result.events)).toEqual([{ line: 5, sku: 'A', qty: '1' }]);
    // Without a profile the title line would be the header.
    const plain = await readDelimitedFile(dir, 'blank2.csv', bytes);
    expect(columns(plain.events)).toEqual(['title']);
  });

  it('gives no header for a file of blank lines, and fails a headerLine past the end', async () => {
    expect((await readDelimitedFile(dir, 'e.csv', Buffer.from('\n \n'))).events).toEqual([]);
    await expect(
      readDelimitedFile(dir, 'short.csv', Buffer.from('Title\n'), { headerLine: 3 }),
    ).rejects.toThrow(/header is expected on line 3, but the file has only 1 lines/);
  });

  it('fails the file on a duplicate column, an unclosed quote, or a record over the cap', async () => {
    await expect(readDelimitedFile(dir, 'd.csv', Buffer.from('sku;SKU\n1;2\n'))).rejects.toThrow(
      FileFormatError,
    );
    await expect(readDelimitedFile(dir, 'u.csv', Buffer.from('sku;qty\n"A;1\n'))).rejects.toThrow(
      /not readable as delimited text/,
    );
    await expect(
      readDelimitedFile(dir, 'big.csv', Buffer.from(`sku;qty\nA;${'9'.repeat(5000)}\n`), {
        maxRecordBytes: 1000,
      }),
    ).rejects.toThrow(FileFormatError);
    await expect(
      readDelimitedFile(dir, 'bighead.csv', Buffer.from(`${'h'.repeat(5000)}\nA\n`), {
        maxRecordBytes: 1000,
      }),
    ).rejects.toThrow(/longer than 1000 bytes/);
  });

  it('throws a read error of the file as it is, in the header search and after it', async () => {
    for (const cut of [5, 100]) {
      const bytes = Buffer.from(`sku;qty\n${'A;1\n'.repeat(50)}`);
      const source = new Readable({
        read() {
          this.push(bytes.subarray(0, cut));
          this.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
        },
      });
      await expect(readDelimitedStream(source, bytes)).rejects.toMatchObject({ code: 'EIO' });
    }
  });

  it('reads the same whatever the chunk boundaries', async () => {
    const text = 'Titel\nArtikelnr;Menge\nÄ-1;1\n"Ö;2";2\n';
    for (const bytes of [cp1252(text), utf16le(text), Buffer.from(text)]) {
      for (const size of [1, 2, 3, 5]) {
        const result = await readDelimitedStream(chunked(bytes, size), bytes, { headerLine: 2 });
        expect(records(result.events)).toEqual([
          { line: 3, artikelnr: 'Ä-1', menge: '1' },
          { line: 4, artikelnr: 'Ö;2', menge: '2' },
        ]);
        expect(result.tapHash).toBe(result.fileHash);
      }
    }
  });
});
