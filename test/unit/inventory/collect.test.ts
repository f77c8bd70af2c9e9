import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  type CollectedFile,
  collectFile,
  type UnreadableFile,
} from '../../../src/inventory/ingest/collect.ts';
import { MAX_REJECTED_LISTED } from '../../../src/inventory/ingest/collector.ts';
import type { InboxFormat } from '../../../src/inventory/parse/records.ts';

function collect(format: InboxFormat, text: string | Buffer, chunk = 7) {
  const buf = typeof text === 'string' ? Buffer.from(text) : text;
  // Small chunks: line counting and parsing must not depend on chunk edges.
  const parts: Buffer[] = [];
  for (let i = 0; i < buf.length; i += chunk) parts.push(buf.subarray(i, i + chunk));
  return collectFile(Readable.from(parts), { format, maxSkuLength: 64 });
}

async function ok(format: InboxFormat, text: string | Buffer): Promise<CollectedFile> {
  const r = await collect(format, text);
  if (!r.ok) throw new Error(`unexpected failure: ${r.reason}`);
  return r;
}

async function bad(format: InboxFormat, text: string | Buffer): Promise<UnreadableFile> {
  const r = await collect(format, text);
  if (r.ok) throw new Error('unexpectedly readable');
  return r;
}

const stock = (c: CollectedFile) =>
  [...c.stock.values()].map((e) => `${e.dc ? `${e.dc}/` : ''}${e.sku}=${e.quantity}@${e.line}`);

describe('CSV', () => {
  it('reads a BOM, CRLF, quoted fields with commas, quotes and line breaks; counts physical lines', async () => {
    const c = await ok(
      'csv',
      '\ufeffSKU , Stock_Quantity,Note\r\n"A,1",1,\r\n"B ""big""",2,"say ""hi"""\r\nC,3,"two\r\nlines"\r\n\r\nD,x,\r\nE,5,',
    );
    expect(c.kind).toBe('factory_stock');
    expect(c.ignoredColumns).toEqual(['note']);
    expect(stock(c)).toEqual(['A,1=1@2', 'B "big"=2@3', 'C=3@4', 'E=5@8']);
    expect(c.rejected).toEqual([
      {
        line: 7,
        key: 'factory:D',
        field: 'stock_quantity',
        reason: 'not a whole number ≥ 0',
        value: 'x',
      },
    ]);
    expect(c).toMatchObject({ rowsRead: 5, rowsAccepted: 4, rowsRejected: 1 });
  });

  it('reads LF files and DC stock; blank rows and rows of empty fields are skipped', async () => {
    const c = await ok(
      'csv',
      'distribution_centre_code,sku,stock_quantity\n\nDC1,A,1\n,,\n  ,  , \nDC2,A,2\n',
    );
    expect(c.kind).toBe('dc_stock');
    expect(stock(c)).toEqual(['DC1/A=1@3', 'DC2/A=2@6']);
    expect(c.rowsRead).toBe(2);
  });

  it('rejects a short or long row alone', async () => {
    const c = await ok('csv', 'sku,stock_quantity\nA\nB,1\nC,1,extra\n');
    expect(c.rejected).toEqual([
      { line: 2, field: '(row)', reason: 'has 1 fields, the header has 2', value: 'A' },
      { line: 4, field: '(row)', reason: 'has 3 fields, the header has 2', value: 'C,1,extra' },
    ]);
    expect(stock(c)).toEqual(['B=1@3']);
  });

  it('keeps the last row of a key and lists the duplicates', async () => {
    const c = await ok('csv', 'sku,stock_quantity\nA,1\nB,2\nA,3\nA,4\n');
    expect(stock(c)).toEqual(['A=4@5', 'B=2@3']);
    expect(c.duplicates).toEqual({
      rows: 2,
      keys: [{ key: 'factory:A', lines: [2, 4, 5] }],
      keysOmitted: 0,
    });
    expect(c.rowsAccepted).toBe(4);
  });

  it('caps the list of rejected rows and counts the rest', async () => {
    const rows = Array.from({ length: MAX_REJECTED_LISTED + 5 }, (_, i) => `S${i},-1`).join('\n');
    const c = await ok('csv', `sku,stock_quantity\n${rows}\nGOOD,1\n`);
    expect(c.rejected).toHaveLength(MAX_REJECTED_LISTED);
    expect(c.rejectedOmitted).toBe(5);
    expect(c.rowsRejected).toBe(MAX_REJECTED_LISTED + 5);
  });

  it.each([
    ['', 'empty file'],
    ['\n\n', 'no header row (the file holds only blank lines)'],
    ['sku,stock_quantity\n', 'no data rows'],
    ['sku,qty\nA,1\n', 'no columns naming a kind'],
    ['sku,stock_quantity,SKU\nA,1,2\n', 'column "sku" appears twice'],
    ['sku,stock_quantity\n"A,1\nB,2\n', 'not readable as delimited text'],
  ])('fails the whole file for %j', async (text, reason) => {
    expect((await bad('csv', text)).reason).toContain(reason);
  });

  it('hashes what it read', async () => {
    const c = await ok('csv', 'sku,stock_quantity\nA,1\n');
    const { createHash } = await import('node:crypto');
    expect(c.hash).toBe(createHash('sha256').update('sku,stock_quantity\nA,1\n').digest('hex'));
    expect(c.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('JSON', () => {
  it('reads an array of objects; positions are elements; non-objects are row errors', async () => {
    const c = await ok(
      'json',
      '\ufeff[{"SKU":"A","Stock_Quantity":1,"colour":"red"},5,{"sku":"B","stock_quantity":"2"},{"sku":"C","stock_quantity":-1}]',
    );
    expect(c.positions).toBe('element');
    expect(stock(c)).toEqual(['A=1@1', 'B=2@3']);
    expect(c.ignoredColumns).toEqual(['colour']);
    expect(c.rejected).toEqual([
      { line: 2, field: '(row)', reason: 'not a JSON object' },
      {
        line: 4,
        key: 'factory:C',
        field: 'stock_quantity',
        reason: 'not a whole number ≥ 0',
        value: '-1',
      },
    ]);
  });

  it('reads confirmations with optional fields', async () => {
    const c = await ok(
      'json',
      JSON.stringify([
        { order_number: 'O1', carrier: 'UPS', tracking_number: 'T1' },
        {
          order_number: 'O2',
          carrier: 'DHL',
          tracking_number: 'T2',
          is_collected: true,
          action: 'collected',
        },
      ]),
    );
    expect(c.kind).toBe('shipment_confirmations');
    expect(c.confirmations).toEqual([
      {
        orderNumber: 'O1',
        carrier: 'UPS',
        trackingNumber: 'T1',
        isCollected: false,
        action: 'shipped',
        line: 1,
      },
      {
        orderNumber: 'O2',
        carrier: 'DHL',
        trackingNumber: 'T2',
        isCollected: true,
        action: 'collected',
        line: 2,
      },
    ]);
  });

  it.each([
    ['', 'empty file'],
    ['[]', 'no data rows'],
    ['{"sku":"A","stock_quantity":1}', 'not a JSON array of objects'],
    ['[{"sku":"A",', 'not readable as JSON'],
    [
      '[{"sku":"A","stock_quantity":1},{"order_number":"O","carrier":"C","tracking_number":"T"}]',
      'mixed kinds',
    ],
    ['[{"colour":"red"}]', 'no row names a kind'],
  ])('fails the whole file for %j', async (text, reason) => {
    expect((await bad('json', text)).reason).toContain(reason);
  });
});

describe('JSON lines', () => {
  it('reads one object a line; blank lines skipped; bad lines are row errors with their line', async () => {
    const c = await ok(
      'jsonl',
      '{"distribution_centre_code":"DC1","sku":"A","stock_quantity":1}\r\n\r\nnot json\r\n[1]\r\n{"distribution_centre_code":"DC1","sku":"B","stock_quantity":2}\r\n',
    );
    expect(c.kind).toBe('dc_stock');
    expect(stock(c)).toEqual(['DC1/A=1@1', 'DC1/B=2@5']);
    expect(c.rejected).toEqual([
      { line: 3, field: '(row)', reason: 'not valid JSON', value: 'not json' },
      { line: 4, field: '(row)', reason: 'not a JSON object', value: '[1]' },
    ]);
  });

  it('fails a file that mixes kinds', async () => {
    const r = await bad(
      'jsonl',
      '{"sku":"A","stock_quantity":1}\n{"distribution_centre_code":"DC1","sku":"B","stock_quantity":2}\n',
    );
    expect(r.reason).toContain('mixed kinds: line 2');
  });
});
