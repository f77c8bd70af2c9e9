import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DcListUnavailableError } from '../../src/inventory/validate/dcDirectory.ts';
import { InboxLedger } from '../../src/state/inbox/inboxLedger.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('process');
});
afterEach(async () => {
  await env.cleanup();
});

describe('processInboxFile: stock files', () => {
  it('applies a factory CSV, moves it to processed/ under a unique name with its report', async () => {
    env.drop(
      'stock.csv',
      '\ufeffsku,stock_quantity,note\r\nA,1,x\r\n"B,""2""",2,\r\nC,1.5,\r\nA,3,\r\n',
    );
    // A clock that moves 5 ms at each look: the report's timing must come from it.
    const start = Date.parse('2026-03-01T08:00:00.000Z');
    let looks = 0;
    const clock = { now: () => start + 5 * looks++, sleep: async () => {} };
    const out = await env.process('stock.csv', { clock });
    expect(out).toMatchObject({
      status: 'processed',
      kind: 'factory_stock',
      rowsRead: 4,
      rowsAccepted: 3,
      rowsRejected: 1,
      pendingKeys: 2,
    });
    expect(env.list('inbox')).toEqual([]);
    expect(env.list('processed')).toEqual([
      expect.stringMatching(/^\d{8}T\d{6}Z-1-stock\.csv$/),
      expect.stringMatching(/^\d{8}T\d{6}Z-1-stock\.csv\.report\.json$/),
    ]);
    const report = env.report(out);
    expect(report).toMatchObject({
      file: 'stock.csv',
      outcome: 'processed',
      kind: 'factory_stock',
      format: 'csv',
      positions: 'line',
      rowsRead: 4,
      rowsAccepted: 3,
      rowsRejected: 1,
      rejected: [
        {
          line: 4,
          key: 'factory:C',
          field: 'stock_quantity',
          reason: 'has a fraction (decimal mark "."): quantities are whole',
          value: '1.5',
        },
      ],
      rejectedOmitted: 0,
      duplicates: { rows: 1, keys: [{ key: 'factory:A', lines: [2, 5] }] },
      ignoredColumns: ['note'],
      stock: {
        keys: 2,
        differingFromPortal: 2,
        newlyPending: 2,
        failuresReplaced: 0,
        supersededByNewerFile: 0,
      },
    });
    expect(report.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(report.timing.receivedAt).toBe('2026-03-01T08:00:00.000Z');
    const finishedAt = Date.parse(report.timing.finishedAt);
    expect(finishedAt).toBeGreaterThan(start);
    expect(finishedAt).toBeLessThan(start + 5 * looks);
    expect(report.timing.ms).toBe(finishedAt - start);
    expect(env.desired()).toEqual([
      { kind: 'factory', dc: '', sku: 'A', quantity: 3, source: 'file:1' },
      { kind: 'factory', dc: '', sku: 'B,"2"', quantity: 2, source: 'file:1' },
    ]);
    expect(env.capture.events('file.processed')[0]).toMatchObject({
      file: 'stock.csv',
      rowsRead: 4,
      rowsAccepted: 3,
      rowsRejected: 1,
    });
    expect(new InboxLedger(env.db).get(1)).toMatchObject({
      status: 'processed',
      kind: 'factory_stock',
    });
  });

  it('applies DC stock from JSONL and NDJSON, rejecting unknown and inactive centres', async () => {
    env.drop(
      'dc.ndjson',
      [
        '{"distribution_centre_code":"DC1","sku":"A","stock_quantity":4}',
        '{"distribution_centre_code":"OLD","sku":"A","stock_quantity":4}',
        '{"distribution_centre_code":"NOPE","sku":"A","stock_quantity":4}',
        '{"distribution_centre_code":"NOPE","sku":"B","stock_quantity":4}',
        '',
      ].join('\n'),
    );
    const out = await env.process('dc.ndjson');
    expect(out).toMatchObject({
      status: 'processed',
      kind: 'dc_stock',
      rowsAccepted: 1,
      rowsRejected: 3,
    });
    expect(env.report(out).rejected).toEqual([
      {
        line: 2,
        key: 'dc:OLD:A',
        field: 'distribution_centre_code',
        reason: 'inactive distribution centre',
        value: 'OLD',
      },
      {
        line: 3,
        key: 'dc:NOPE:A',
        field: 'distribution_centre_code',
        reason: 'unknown distribution centre',
        value: 'NOPE',
      },
      {
        line: 4,
        key: 'dc:NOPE:B',
        field: 'distribution_centre_code',
        reason: 'unknown distribution centre',
        value: 'NOPE',
      },
    ]);
    // The list is fetched once for the first unknown code (DC1 was unknown too: the cache was empty).
    expect(env.portal.fetches).toBe(1);
    expect(env.desired()).toEqual([
      { kind: 'dc', dc: 'DC1', sku: 'A', quantity: 4, source: 'file:1' },
    ]);
    expect(env.dirty()).toEqual(['dc:DC1:A']);

    env.portal.centres.push({ code: 'NEW', is_active: true });
    env.drop('dc2.jsonl', '{"distribution_centre_code":"NEW","sku":"A","stock_quantity":1}\n');
    expect(await env.process('dc2.jsonl')).toMatchObject({ status: 'processed', rowsAccepted: 1 });
    expect(env.portal.fetches).toBe(2);
  });

  it('leaves a DC file in inbox/ when unknown centres appear and the list cannot be refreshed', async () => {
    env.portal.down = true;
    env.drop('dc.csv', 'distribution_centre_code,sku,stock_quantity\nDC1,A,1\n');
    await expect(env.process('dc.csv')).rejects.toBeInstanceOf(DcListUnavailableError);
    expect(env.list('inbox')).toEqual(['dc.csv']);
    expect(env.desired()).toEqual([]);
    env.portal.down = false;
    expect(await env.process('dc.csv')).toMatchObject({ status: 'processed' });
  });

  it('applies a JSON array of factory stock', async () => {
    env.drop(
      's.json',
      JSON.stringify([
        { sku: 'A', stock_quantity: 1 },
        { sku: 'B', stock_quantity: '2' },
      ]),
    );
    const out = await env.process('s.json');
    expect(out).toMatchObject({ status: 'processed', rowsAccepted: 2 });
    expect(env.report(out).positions).toBe('element');
  });

  it('marks keys dirty only where they differ from the known remote stock', async () => {
    const remote = env.db.prepare(
      "INSERT INTO remote_stock (kind, dc, sku, quantity, seen_at) VALUES ('factory', '', ?, ?, 0)",
    );
    remote.run('SAME', 5);
    remote.run('DIFF', 5);
    env.drop('s.csv', 'sku,stock_quantity\nSAME,5\nDIFF,6\nNEW,1\n');
    const out = await env.process('s.csv');
    expect(out.pendingKeys).toBe(2);
    expect(env.dirty()).toEqual(['factory:DIFF', 'factory:NEW']);
    expect(env.report(out).stock).toEqual({
      keys: 3,
      differingFromPortal: 2,
      newlyPending: 2,
      failuresReplaced: 0,
      supersededByNewerFile: 0,
      // No stock rules: offered as the ERP counts.
      offers: {
        erpUnits: 12,
        offeredUnits: 12,
        adjusted: 0,
        excluded: 0,
        byRule: [],
        examples: [],
      },
    });
  });

  it('a newer different quantity replaces a stored failure; the same quantity keeps it', async () => {
    const fail = env.db.prepare(
      `INSERT INTO stock_failures (kind, dc, sku, quantity, error, attempts, first_failed_at, last_failed_at, next_attempt_at)
       VALUES ('factory', '', ?, ?, 'rejected', 1, 0, 0, 0)`,
    );
    fail.run('X', 5);
    fail.run('Y', 7);
    env.drop('s.csv', 'sku,stock_quantity\nX,6\nY,7\n');
    const out = await env.process('s.csv');
    expect(env.report(out).stock?.failuresReplaced).toBe(1);
    expect(env.db.prepare('SELECT sku, quantity FROM stock_failures').all()).toEqual([
      { sku: 'Y', quantity: 7 },
    ]);
  });

  it('records the same content dropped again as a duplicate that changes nothing', async () => {
    const content = 'sku,stock_quantity\nA,1\n';
    env.drop('a.csv', content);
    await env.process('a.csv');
    env.db.prepare('DELETE FROM pending_stock').run();
    env.db.prepare("UPDATE desired_stock SET quantity = 9 WHERE sku = 'A'").run(); // a marker
    env.drop('a-again.csv', content);
    const out = await env.process('a-again.csv');
    expect(out).toMatchObject({ status: 'duplicate', kind: 'factory_stock' });
    expect(out.destination).toContain('/processed/');
    expect(env.report(out)).toMatchObject({
      outcome: 'duplicate',
      duplicateOf: { ledgerId: 1, file: 'a.csv' },
    });
    expect(env.desired()[0]?.quantity).toBe(9);
    expect(env.dirty()).toEqual([]);
    expect(env.capture.events('file.duplicate')).toHaveLength(1);
    expect(new InboxLedger(env.db).get(2)?.status).toBe('duplicate');
  });

  it('applies old content again when a newer file of the kind came in between (the newer file wins)', async () => {
    env.drop('day1.csv', 'sku,stock_quantity\nA,5\n');
    await env.process('day1.csv');
    env.drop('day2.csv', 'sku,stock_quantity\nA,7\n');
    await env.process('day2.csv');
    env.drop('day3.csv', 'sku,stock_quantity\nA,5\n');
    expect((await env.process('day3.csv')).status).toBe('processed');
    expect(env.desired()[0]?.quantity).toBe(5);
  });
});

describe('processInboxFile: shipment confirmations', () => {
  it('stores new rows pending, skips duplicates, replaces a pending row by a correction; a conflict only against a confirmed one', async () => {
    env.drop(
      'c.csv',
      'order_number,carrier,tracking_number,is_collected,action\nO1,UPS,T1,false,\nO2,DHL,T2,1,collected\nO1,UPS,T1,,shipped\nO1,UPS,T9,,\nO3,,T3,,\n',
    );
    const out = await env.process('c.csv');
    expect(out).toMatchObject({
      status: 'processed',
      kind: 'shipment_confirmations',
      rowsAccepted: 4,
      rowsRejected: 1,
      confirmations: { new: 3, duplicate: 1, conflict: 0 },
    });
    const report = env.report(out);
    expect(report.confirmations?.rows.map((r) => [r.line, r.orderNumber, r.outcome])).toEqual([
      [2, 'O1', 'new'],
      [3, 'O2', 'new'],
      [4, 'O1', 'duplicate'],
      [5, 'O1', 'new'],
    ]);
    // T9 corrects T1, which was not sent yet: T1 is replaced, never sent.
    expect(report.confirmations?.rows[3]?.replaced).toEqual([
      { id: 1, action: 'shipped', carrier: 'UPS', trackingNumber: 'T1', status: 'pending' },
    ]);
    expect(report.rejected).toEqual([
      { line: 6, key: 'shipment:O3', field: 'carrier', reason: 'empty', value: '' },
    ]);
    const rows = env.db
      .prepare(
        'SELECT order_number, action, tracking_number, is_collected, status, file_id, line FROM shipment_confirmations ORDER BY id',
      )
      .all();
    expect(rows).toEqual([
      {
        order_number: 'O1',
        action: 'shipped',
        tracking_number: 'T1',
        is_collected: 0,
        status: 'replaced',
        file_id: 1,
        line: 2,
      },
      {
        order_number: 'O2',
        action: 'collected',
        tracking_number: 'T2',
        is_collected: 1,
        status: 'pending',
        file_id: 1,
        line: 3,
      },
      {
        order_number: 'O1',
        action: 'shipped',
        tracking_number: 'T9',
        is_collected: 0,
        status: 'pending',
        file_id: 1,
        line: 5,
      },
    ]);

    // The portal takes T9. A later file: the same confirmation, a different order, and T1 for
    // O1 again: one duplicate, one new, and a conflict (O1 is confirmed with T9), never sent.
    env.db.prepare(`UPDATE shipment_confirmations SET status = 'confirmed' WHERE id = 3`).run();
    env.drop(
      'c2.jsonl',
      '{"order_number":"O2","carrier":"DHL","tracking_number":"T2","action":"collected"}\n{"order_number":"O4","carrier":"DHL","tracking_number":"T4"}\n{"order_number":"O1","carrier":"UPS","tracking_number":"T1"}\n',
    );
    const later = await env.process('c2.jsonl');
    expect(later.confirmations).toEqual({ new: 1, duplicate: 1, conflict: 1 });
    expect(env.report(later).confirmations?.rows[2]).toMatchObject({
      outcome: 'conflict',
      existing: { carrier: 'UPS', trackingNumber: 'T9' },
    });
  });
});

describe('processInboxFile: whole-file failures', () => {
  it.each([
    ['notes.pdf', 'hello', 'unsupported file extension'],
    ['empty.csv', '', 'empty file'],
    ['header-only.csv', 'sku,stock_quantity\r\n', 'no data rows'],
    ['nokind.csv', 'item,qty\nA,1\n', 'no columns naming a kind'],
    ['broken.csv', 'sku,stock_quantity\n"A,1\n', 'not readable as delimited text'],
    ['broken.json', '[{"sku":', 'not readable as JSON'],
    ['object.json', '{"sku":"A","stock_quantity":1}', 'not a JSON array of objects'],
    [
      'mixed.jsonl',
      '{"sku":"A","stock_quantity":1}\n{"order_number":"O","carrier":"C","tracking_number":"T"}\n',
      'mixed kinds',
    ],
    ['allbad.csv', 'sku,stock_quantity\nA,-1\nB,x\n', 'every row was rejected'],
  ])('%s goes to failed/ with a report saying why', async (name, content, reason) => {
    env.drop(name, content);
    const out = await env.process(name);
    expect(out.status).toBe('failed');
    expect(out.destination).toContain('/failed/');
    expect(env.list('inbox')).toEqual([]);
    expect(env.list('failed')).toHaveLength(2);
    const report = env.report(out);
    expect(report.outcome).toBe('failed');
    expect(report.file).toBe(name);
    expect(report.reason).toContain(reason);
    expect(env.desired()).toEqual([]);
    expect(env.capture.events('file.failed')[0]).toMatchObject({ file: name });
  });

  it('a file with every row rejected still lists them', async () => {
    env.drop('allbad.csv', 'sku,stock_quantity\nA,-1\n');
    const report = env.report(await env.process('allbad.csv'));
    expect(report.rejected).toEqual([
      {
        line: 2,
        key: 'factory:A',
        field: 'stock_quantity',
        reason: 'not a whole number ≥ 0',
        value: '-1',
      },
    ]);
  });

  it('moves a symbolic link to failed/ without following it', async () => {
    const target = join(env.dataDir, 'secret.csv');
    writeFileSync(target, 'sku,stock_quantity\nA,1\n');
    symlinkSync(target, join(env.paths.inbox, 'link.csv'));
    const out = await env.process('link.csv');
    expect(out.status).toBe('failed');
    expect(env.report(out).reason).toContain('a symbolic link');
    expect(env.report(out).contentHash).toBeNull();
    expect(env.desired()).toEqual([]);
    expect(existsSync(target)).toBe(true);
    expect(env.list('inbox')).toEqual([]);
  });

  it('moves a FIFO to failed/ without opening it', async () => {
    execFileSync('mkfifo', [join(env.paths.inbox, 'pipe.csv')]);
    const out = await env.process('pipe.csv');
    expect(out.status).toBe('failed');
    expect(env.report(out).reason).toContain('named pipe');
    expect(env.list('inbox')).toEqual([]);
  });

  it('leaves folders and temporary names alone', async () => {
    mkdirSync(join(env.paths.inbox, 'sub'));
    env.drop('x.csv.part', 'sku,stock_quantity\nA,1\n');
    expect((await env.process('sub')).status).toBe('skipped');
    expect((await env.process('x.csv.part')).status).toBe('skipped');
    expect((await env.process('gone.csv')).status).toBe('missing');
    expect(env.list('inbox')).toEqual(['sub', 'x.csv.part']);
  });
});

describe('processInboxFile: progress', () => {
  it('logs file.progress for a large file', async () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => `S${i},${i}`).join('\n');
    env.drop('big.csv', `sku,stock_quantity\n${rows}\n`);
    let t = 0;
    const clock = { now: () => (t += 6000), sleep: async () => {} }; // every look at the clock: 6 s later
    const out = await env.process('big.csv', { clock });
    expect(out.rowsAccepted).toBe(30_000);
    expect(env.capture.events('file.progress').length).toBeGreaterThan(0);
  });
});

describe('processInboxFile: order of files', () => {
  it('never lets an older file, applied late, overwrite the rows of a newer one', async () => {
    {
      env.drop('old.csv', 'sku,stock_quantity\nA,1\nB,1\n');
      env.drop('new.csv', 'sku,stock_quantity\nA,2\n');
      const past = new Date(Date.now() - 60_000);
      utimesSync(join(env.paths.inbox, 'old.csv'), past, past);
      await env.process('new.csv'); // the newer file first (as after a crash)
      const late = await env.process('old.csv');
      expect(late.status).toBe('processed');
      const report = JSON.parse(readFileSync(late.reportPath!, 'utf8'));
      expect(report.stock.supersededByNewerFile).toBe(1);
      expect(Object.fromEntries(env.desired().map((d) => [d.sku, d.quantity]))).toEqual({
        A: 2,
        B: 1,
      });
    }
  });
});
