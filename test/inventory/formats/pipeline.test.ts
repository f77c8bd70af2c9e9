import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Profile, profilesFileSchema } from '../../../src/config/profiles.ts';
import { KeyValueStore } from '../../../src/state/kv.ts';
import { RemoteStock } from '../../../src/state/stock/remoteStock.ts';
import { type IngestEnv, makeIngestEnv } from '../helpers.ts';
import { cp1252, utf16le } from './helpers.ts';

/**
 * ERP exports through processInboxFile: real files in a real inbox/, a real state.db, the profile
 * chosen by the file's name, the report as written beside the stored file.
 */

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('erp-pipeline');
  env.portal.centres.push({ code: 'DC-LON', is_active: true }, { code: 'DC-MAN', is_active: true });
});
afterEach(async () => {
  await env.cleanup();
});

const profiles = (...list: unknown[]): Profile[] =>
  profilesFileSchema.parse({ profiles: list }).profiles;

const examples = new URL('../../../examples/erp/', import.meta.url);
const exampleProfiles = profilesFileSchema.parse(
  JSON.parse(readFileSync(new URL('profiles.json', examples), 'utf8')),
).profiles;

function dropExample(name: string): void {
  copyFileSync(new URL(name, examples), join(env.paths.inbox, name));
}

/** What the portal is known to hold, as a complete read leaves it. */
function portalHolds(rows: ReadonlyArray<readonly ['factory' | 'dc', string, string, number]>) {
  new RemoteStock(env.db).storeRead(
    rows.map(([kind, dc, sku, quantity]) => ({ kind, dc, sku, quantity, platformSku: null })),
    1,
  );
  new KeyValueStore(env.db).set('remote.read_at.factory', 1);
  new KeyValueStore(env.db).set('remote.read_at.dc', 1);
}

const desired = () =>
  Object.fromEntries(
    env
      .desired()
      .map((r) => [r.kind === 'dc' ? `dc:${r.dc}:${r.sku}` : `factory:${r.sku}`, r.quantity]),
  );

describe('ERP exports through the pipeline', () => {
  it('reads the semicolon Windows-1252 export: umlauts in the header, a title line, decimal commas, SAP minus', async () => {
    dropExample('LAGER_20240501.TXT');
    const out = await env.process('LAGER_20240501.TXT', { profiles: () => exampleProfiles });
    expect(out).toMatchObject({ status: 'processed', kind: 'dc_stock', rowsAccepted: 3 });
    const report = env.report(out);
    expect(report).toMatchObject({
      profile: 'LAGER_*.TXT',
      encoding: 'windows-1252',
      delimiter: ';',
      headerLine: 2,
      format: 'csv',
      rowsRead: 4,
      rowsRejected: 1,
      clamped: 1,
      absentZeroed: 0,
      ignoredColumns: ['bezeichnung', 'größe'],
      rejected: [
        {
          line: 6,
          field: 'stock_quantity',
          reason: 'has a fraction (decimal mark ","): quantities are whole',
          value: '2,5',
        },
      ],
    });
    expect(desired()).toEqual({
      'dc:DC-LON:SKU-0000001': 1234,
      'dc:DC-LON:SKU-0000002': 12,
      'dc:DC-MAN:SKU-0000003': 0,
    });
    expect(env.capture.events('file.processed')[0]).toMatchObject({
      profile: 'LAGER_*.TXT',
      encoding: 'windows-1252',
      delimiter: ';',
      clamped: 1,
    });
  });

  it("reads Excel's Unicode text (UTF-16LE with a BOM, TABs, CRLF) without a profile", async () => {
    env.drop(
      'export.TSV',
      utf16le('sku\tstock_quantity\tBeschreibung\r\nÄ-1\t1,500\tGrüße\r\nB-2\t7.00\t"a\tb"\r\n'),
    );
    const out = await env.process('export.TSV');
    const report = env.report(out);
    expect(report).toMatchObject({
      outcome: 'processed',
      profile: null,
      encoding: 'utf-16le',
      delimiter: '\t',
      headerLine: 1,
      rowsAccepted: 2,
    });
    expect(desired()).toEqual({ 'factory:Ä-1': 1500, 'factory:B-2': 7 });
  });

  it.each([
    ['UTF-8 without a BOM, LF', Buffer.from('sku;stock_quantity\nGrün-1;"1.234"\n"X;Y";2\n')],
    [
      'UTF-8 with a BOM, CRLF',
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from('sku;stock_quantity\r\nGrün-1;1.234\r\n"X;Y";2\r\n'),
      ]),
    ],
    ['Windows-1252, CRLF', cp1252('sku;stock_quantity\r\nGrün-1;1.234\r\n"X;Y";2\r\n')],
  ])('reads %s with quoted delimiters and the decimal comma a profile sets', async (_, bytes) => {
    env.drop('bestand.csv', bytes);
    const out = await env.process('bestand.csv', {
      profiles: () => profiles({ match: 'bestand.*', decimal: ',' }),
    });
    expect(env.report(out)).toMatchObject({
      outcome: 'processed',
      delimiter: ';',
      rowsRejected: 0,
    });
    expect(desired()).toEqual({ 'factory:Grün-1': 1234, 'factory:X;Y': 2 });
  });

  it('whole numbers as ERPs write them; fractions are bad values saying so', async () => {
    env.drop(
      'q.csv',
      'sku,stock_quantity\nA,"1,234"\nB,12.00\nC,2.5\nD,"1,5"\nE,-3\nF,"12,34,567"\n',
    );
    const report = env.report(await env.process('q.csv'));
    expect(desired()).toEqual({ 'factory:A': 1234, 'factory:B': 12 });
    expect(report.rejected).toEqual([
      {
        line: 4,
        key: 'factory:C',
        field: 'stock_quantity',
        reason: 'has a fraction (decimal mark "."): quantities are whole',
        value: '2.5',
      },
      {
        line: 5,
        key: 'factory:D',
        field: 'stock_quantity',
        reason: 'digits not grouped by threes: with the decimal mark ".", "," groups thousands',
        value: '1,5',
      },
      {
        line: 6,
        key: 'factory:E',
        field: 'stock_quantity',
        reason: 'not a whole number ≥ 0',
        value: '-3',
      },
      {
        line: 7,
        key: 'factory:F',
        field: 'stock_quantity',
        reason: 'digits not grouped by threes: with the decimal mark ".", "," groups thousands',
        value: '12,34,567',
      },
    ]);
    expect(report.clamped).toBe(0);
  });

  it('negative: "zero" offers 0 and counts the rows as clamped', async () => {
    env.drop('neg.csv', 'sku,stock_quantity\nA,-3\nB,5-\nC,4\nA,-1\n');
    const out = await env.process('neg.csv', {
      profiles: () => profiles({ match: 'neg.csv', negative: 'zero' }),
    });
    const report = env.report(out);
    expect(report).toMatchObject({ rowsAccepted: 4, rowsRejected: 0, clamped: 3 });
    expect(desired()).toEqual({ 'factory:A': 0, 'factory:B': 0, 'factory:C': 4 });
  });

  it('maps columns and a constant centre; a mapped column the header lacks names itself', async () => {
    const list = profiles({
      match: 'lon-*.csv',
      constants: { distribution_centre_code: 'DC-LON' },
      columns: { sku: 'Item', stock_quantity: 'Qty' },
    });
    env.drop('lon-1.csv', 'Title line\nITEM , qty,sku\nA,3,ignored\n');
    const bad = await env.process('lon-1.csv', { profiles: () => list });
    expect(bad.status).toBe('failed');
    expect(env.report(bad).reason).toContain(
      'the profile maps sku to "Item", which the header lacks',
    );

    env.drop('lon-2.csv', ' ITEM ; qty;sku\nA;3;ignored\n');
    const good = await env.process('lon-2.csv', { profiles: () => list });
    expect(env.report(good)).toMatchObject({ kind: 'dc_stock', profile: 'lon-*.csv' });
    expect(desired()).toEqual({ 'dc:DC-LON:A': 3 });
  });

  it('skips lines above headerLine: neither rows nor rejections; positions stay lines of the file', async () => {
    env.drop('t.csv', 'Stock export\n;;;\nsku,stock_quantity\n\nA,1\nB,x\n');
    const out = await env.process('t.csv', {
      profiles: () => profiles({ match: 't.csv', headerLine: 2 }),
    });
    expect(env.report(out)).toMatchObject({
      headerLine: 3,
      rowsRead: 2,
      rowsAccepted: 1,
      rejected: [{ line: 6, field: 'stock_quantity' }],
    });
  });
});

describe('full exports (absent: "zero")', () => {
  const full = (match: string, extra: object = {}) => profiles({ match, absent: 'zero', ...extra });

  it('a factory export zeroes the keys the portal holds above 0 that it omits', async () => {
    portalHolds([
      ['factory', '', 'A', 5],
      ['factory', '', 'B', 7],
      ['factory', '', 'C', 0],
      ['dc', 'DC1', 'B', 9],
    ]);
    env.drop('items.csv', 'sku,stock_quantity\nA,4\n');
    const out = await env.process('items.csv', { profiles: () => full('items.csv') });
    expect(out.pendingKeys).toBe(2);
    expect(env.report(out)).toMatchObject({
      absentZeroed: 1,
      stock: { keys: 2, differingFromPortal: 2 },
    });
    // C is 0 already; DC stock is another kind.
    expect(desired()).toEqual({ 'factory:A': 4, 'factory:B': 0 });
    expect(env.dirty()).toEqual(['factory:A', 'factory:B']);
  });

  it('a DC export zeroes only at the centres it names', async () => {
    portalHolds([
      ['dc', 'DC1', 'A', 5],
      ['dc', 'DC1', 'B', 7],
      ['dc', 'DC2', 'B', 9],
      ['factory', '', 'B', 3],
    ]);
    env.drop('dc.csv', 'distribution_centre_code,sku,stock_quantity\nDC1,A,5\n');
    const out = await env.process('dc.csv', { profiles: () => full('dc.csv') });
    expect(env.report(out).absentZeroed).toBe(1);
    expect(desired()).toEqual({ 'dc:DC1:A': 5, 'dc:DC1:B': 0 });
    expect(env.dirty()).toEqual(['dc:DC1:B']);
  });

  it('also zeroes a key an earlier file set above 0 whose push is still owed', async () => {
    portalHolds([['factory', '', 'A', 5]]);
    env.drop('one.csv', 'sku,stock_quantity\nA,5\nNEW,3\n');
    await env.process('one.csv');
    env.drop('full.csv', 'sku,stock_quantity\nA,5\n');
    const out = await env.process('full.csv', { profiles: () => full('full.csv') });
    expect(env.report(out).absentZeroed).toBe(1);
    expect(desired()).toEqual({ 'factory:A': 5, 'factory:NEW': 0 });
  });

  it('reads the portal first where its stock of the kind was never read', async () => {
    const reads: string[] = [];
    const readPortalStock = async (kind: 'factory' | 'dc') => {
      reads.push(kind);
      new RemoteStock(env.db).storeRead(
        [{ kind, dc: '', sku: 'OLD-1', quantity: 4, platformSku: null }],
        2,
      );
      new KeyValueStore(env.db).set(`remote.read_at.${kind}`, 2);
      return true;
    };
    env.drop('f1.csv', 'sku,stock_quantity\nA,1\n');
    const out = await env.process('f1.csv', { profiles: () => full('f*.csv'), readPortalStock });
    expect(reads).toEqual(['factory']);
    expect(env.report(out).absentZeroed).toBe(1);
    expect(desired()).toEqual({ 'factory:A': 1, 'factory:OLD-1': 0 });
    expect(env.capture.events('file.reading_portal')[0]).toMatchObject({ kind: 'factory' });

    env.drop('f2.csv', 'sku,stock_quantity\nA,2\n');
    await env.process('f2.csv', { profiles: () => full('f*.csv'), readPortalStock });
    expect(reads).toEqual(['factory']); // known from then on
  });

  it('a read that could not finish leaves the file in inbox/ for a later try', async () => {
    env.drop('f.csv', 'sku,stock_quantity\nA,1\n');
    await expect(
      env.process('f.csv', { profiles: () => full('f.csv'), readPortalStock: async () => false }),
    ).rejects.toThrow(/full export.*stays in inbox/);
    expect(env.list('inbox')).toEqual(['f.csv']);
    expect(readdirSync(join(env.dataDir, 'staging'))).toEqual([]); // its scratch set discarded
    expect(env.desired()).toEqual([]);
  });
});

describe('workbooks through the pipeline', () => {
  it('reads the first worksheet with shared strings and its header on row 3', async () => {
    const path = join(env.paths.inbox, 'stock-DC-LON-2.xlsx');
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true });
    const ws = wb.addWorksheet('Stock');
    ws.addRow(['Stock at DC-LON']).commit();
    ws.addRow([]).commit();
    ws.addRow(['Item', 'Qty', 'Description']).commit();
    ws.addRow(['SKU-1', 7.0, 'bolt']).commit();
    ws.addRow(['SKU-2', '12', 'nut']).commit();
    ws.addRow(['SKU-3', { formula: 'B4*2', result: 14 }, 'washer']).commit();
    ws.addRow(['SKU-4', 2.5, 'half']).commit();
    wb.addWorksheet('Other').addRow(['sku', 'stock_quantity']).commit();
    await wb.commit();
    const out = await env.process('stock-DC-LON-2.xlsx', { profiles: () => exampleProfiles });
    expect(env.report(out)).toMatchObject({
      outcome: 'processed',
      format: 'xlsx',
      positions: 'row',
      profile: 'stock-DC-LON-*.xlsx',
      headerLine: 3,
      encoding: null,
      delimiter: null,
      rowsAccepted: 3,
      rejected: [{ line: 7, field: 'stock_quantity', value: '2.5' }],
    });
    expect(desired()).toEqual({
      'dc:DC-LON:SKU-1': 7,
      'dc:DC-LON:SKU-2': 12,
      'dc:DC-LON:SKU-3': 14,
    });
  });

  it('reads the example workbook', async () => {
    dropExample('stock-DC-LON-20240501.xlsx');
    const out = await env.process('stock-DC-LON-20240501.xlsx', {
      profiles: () => exampleProfiles,
    });
    expect(out.status).toBe('processed');
    expect(desired()).toEqual({
      'dc:DC-LON:SKU-0000001': 40,
      'dc:DC-LON:SKU-0000002': 7,
      'dc:DC-LON:SKU-0000003': 10,
    });
  });

  it.each([
    ['not a zip', Buffer.from('sku,stock_quantity\nA,1\n')],
    ['a truncated workbook', 'truncated'],
  ])('a workbook that is not readable (%s) goes to failed/ with a reason', async (_, content) => {
    let bytes: Buffer;
    if (content === 'truncated') {
      const whole = join(env.dataDir, 'whole.xlsx');
      const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: whole });
      const ws = wb.addWorksheet('S');
      for (let i = 0; i < 2000; i++) ws.addRow([`SKU-${i}`, i]).commit();
      await wb.commit();
      const all = readFileSync(whole);
      bytes = all.subarray(0, Math.floor(all.length / 2));
    } else bytes = content as Buffer;
    writeFileSync(join(env.paths.inbox, 'broken.XLSX'), bytes);
    const out = await env.process('broken.XLSX');
    expect(out.status).toBe('failed');
    expect(env.list('failed')).toEqual([
      expect.stringMatching(/-broken\.XLSX$/),
      expect.stringMatching(/-broken\.XLSX\.report\.json$/),
    ]);
    expect(env.report(out).reason).toMatch(/^not a readable \.xlsx workbook: /);
    expect(env.desired()).toEqual([]);
  });
});
