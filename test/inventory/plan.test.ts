import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchSizes } from '../../src/api/batchSizes.ts';
import { planCommand } from '../../src/cli/commands/planCommand.ts';
import { UsageError } from '../../src/cli/usage.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { replaceDistributionCentres } from '../../src/state/stock/distributionCentres.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

let env: IngestEnv;
let work: string;
beforeEach(() => {
  env = makeIngestEnv('plan');
  work = join(env.dataDir, 'work');
  mkdirSync(work);
});
afterEach(async () => {
  await env.cleanup();
});

async function plan(args: string[], dataDir = env.dataDir, more: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const code = await planCommand.run({
    argv: args,
    env: { SYNC_DATA_DIR: dataDir, ...more },
    stdout,
    stderr,
    signal: new AbortController().signal,
  });
  return { code, out, err };
}

function file(name: string, content: string): string {
  const p = join(work, name);
  writeFileSync(p, content);
  return p;
}

describe('plan FILE', () => {
  beforeEach(() => {
    const remote = env.db.prepare(
      'INSERT INTO remote_stock (kind, dc, sku, quantity, seen_at) VALUES (?, ?, ?, ?, 0)',
    );
    remote.run('factory', '', 'SAME', 5);
    remote.run('factory', '', 'DIFF', 5);
    remote.run('dc', 'DC1', 'SAME', 1);
    replaceDistributionCentres(env.db, [{ code: 'DC1', is_active: true }], 0);
  });

  it('prints changed, unchanged, unknown and rejected rows and the calls they cost', async () => {
    const rows = Array.from({ length: 1500 }, (_, i) => `NEW${i},1`).join('\n');
    const p = file('stock.csv', `sku,stock_quantity\nSAME,5\nDIFF,6\nBAD,-1\n${rows}\n`);
    const r = await plan([p]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('stock.csv: factory stock (csv)');
    expect(r.out).toMatch(/changed\s+1\n/);
    expect(r.out).toMatch(/unchanged\s+1\n/);
    expect(r.out).toMatch(/unknown to portal\s+1500\n/);
    expect(r.out).toMatch(/rejected rows\s+1\n/);
    expect(r.out).toContain('calls              2 bulk updates (batch size 1000)');
    expect(r.out).toContain('line 4: stock_quantity not a whole number ≥ 0 ("-1")');
    // Nothing written: no desired stock, no ledger row, no inbox files.
    expect(env.desired()).toEqual([]);
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM inbox_files').get()).toEqual({ n: 0 });
    expect(existsSync(p)).toBe(true);
  });

  it('uses the batch size learnt from the portal when it is smaller, and --json', async () => {
    // Seeded the way the client learns it: the portal refused a batch of 2.
    new BatchSizes(env.db, 1000).rejected('dc', 2, Date.now());
    const p = file(
      'dc.jsonl',
      '{"distribution_centre_code":"DC1","sku":"SAME","stock_quantity":2}\n{"distribution_centre_code":"DC1","sku":"B","stock_quantity":2}\n{"distribution_centre_code":"ZZ","sku":"B","stock_quantity":2}\n',
    );
    const r = await plan([p, '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    expect(json).toMatchObject({
      file: 'dc.jsonl',
      kind: 'dc_stock',
      readable: true,
      stateDb: true,
      distributionCentresChecked: true,
      rowsRead: 3,
      rowsAccepted: 2,
      rowsRejected: 1,
      rejected: [
        { line: 3, field: 'distribution_centre_code', reason: 'unknown distribution centre' },
      ],
      stock: { changed: 1, unchanged: 0, unknownToPortal: 1, batchSize: 1, calls: 2 },
    });
  });

  it('plans confirmations against those already stored', async () => {
    // Confirmed on the portal: another tracking number for O1 is a conflict (a pending one would
    // be replaced by the correction, and count as new).
    env.db
      .prepare(
        `INSERT INTO shipment_confirmations (order_number, action, carrier, tracking_number, is_collected, status, next_attempt_at, created_at)
         VALUES ('O1', 'shipped', 'UPS', 'T1', 0, 'confirmed', 0, 0)`,
      )
      .run();
    const p = file(
      'c.csv',
      'order_number,carrier,tracking_number\nO1,UPS,T1\nO1,UPS,T2\nO2,DHL,T3\n',
    );
    const r = await plan([p, '--json']);
    expect(JSON.parse(r.out).confirmations).toEqual({
      new: 1,
      duplicate: 1,
      conflict: 1,
      calls: 1,
    });
  });

  it('with no state.db, everything is unknown to the portal and DCs are not checked', async () => {
    const empty = join(env.dataDir, 'empty-data');
    const p = file('dc.csv', 'distribution_centre_code,sku,stock_quantity\nANY,A,1\nANY,B,2\n');
    const r = await plan([p], empty);
    expect(r.code).toBe(0);
    expect(r.out).toContain('no state.db: nothing is known of the portal yet');
    expect(r.out).toContain('distribution centres not checked');
    expect(r.out).toMatch(/unknown to portal\s+2\n/);
    expect(existsSync(join(empty, 'state.db'))).toBe(false);
  });

  it('exits 4 (would fail) and says why for a file that would fail', async () => {
    const r = await plan([file('x.csv', 'item,qty\nA,1\n')]);
    expect(r.code).toBe(4);
    expect(r.out).toContain('would go to failed/: no columns naming a kind');
  });

  it('says whether the guard rails would hold the file, and why; exits 3 (would hold) when they would', async () => {
    const remote = env.db.prepare(
      'INSERT INTO remote_stock (kind, dc, sku, quantity, seen_at) VALUES (?, ?, ?, ?, 0)',
    );
    for (let i = 0; i < 60; i++) remote.run('factory', '', `G${i}`, 10);
    const rows = (zeroed: number) =>
      `sku,stock_quantity\n${Array.from({ length: 60 }, (_, i) => `G${i},${i < zeroed ? 0 : 10}`).join('\n')}\n`;
    const held = await plan([file('zero.csv', rows(40)), '--json']);
    expect(held.code).toBe(3);
    expect(JSON.parse(held.out).stock.guard).toMatchObject({
      held: true,
      tripped: ['zero'],
      figures: { keysNamed: 60, keysInStock: 60, keysZeroed: 40, sumBefore: 600, sumAfter: 200 },
      thresholds: { GUARD_ZERO_PERCENT: 50, GUARD_DROP_PERCENT: 80, GUARD_MIN_KEYS: 50 },
    });
    const human = await plan([file('zero2.csv', rows(40))]);
    expect(human.code).toBe(3);
    expect(human.out).toMatch(
      /guard rails +would HOLD it in held\/: it would set 40 of the 60 keys/,
    );
    const fine = await plan([file('fine.csv', rows(10))]);
    expect(fine.code).toBe(0);
    expect(fine.out).toMatch(/guard rails +would pass/);
    expect(
      JSON.parse((await plan([file('fine2.csv', rows(10)), '--json'])).out).stock.guard.held,
    ).toBe(false);
  });

  it('reads the file with its profile: encoding, delimiter, header line, clamped and absent-zeroed', async () => {
    env.db
      .prepare('INSERT INTO remote_stock (kind, dc, sku, quantity, seen_at) VALUES (?, ?, ?, ?, 0)')
      .run('factory', '', 'GONE', 4);
    const profiles = join(work, 'profiles.json');
    writeFileSync(
      profiles,
      JSON.stringify({
        profiles: [
          {
            match: 'ITEMS_*.TXT',
            headerLine: 2,
            decimal: ',',
            negative: 'zero',
            absent: 'zero',
            duplicates: 'sum',
            values: { 'k.a.': 'keep' },
            columns: { sku: 'Artikel', stock_quantity: 'Menge' },
          },
        ],
      }),
    );
    const p = join(work, 'ITEMS_1.TXT');
    writeFileSync(
      p,
      Buffer.from(
        'Bestand\r\nArtikel;Menge\r\nSAME;5\r\nDIFF;1.234,00\r\nNEG;3-\r\nBÄR;2,5\r\nGONE;k.A.\r\n',
        'latin1',
      ),
    );
    const env2 = { INBOX_PROFILES_FILE: profiles };
    const unknown = await plan([p, '--json'], env.dataDir, env2);
    expect(JSON.parse(unknown.out)).toMatchObject({
      profile: 'ITEMS_*.TXT',
      encoding: 'windows-1252',
      delimiter: ';',
      headerLine: 2,
      clamped: 1,
      fullExport: true,
      absentZeroed: null,
      rejected: [{ line: 6, value: '2,5' }],
      kept: 1,
      profileRules: ['duplicates sum', 'values "k.a." → keep', 'full export (absent zero)'],
    });
    expect(unknown.out).not.toContain('\ufffd');
    new KeyValueStore(env.db).set('remote.read_at.factory', 1);
    const r = await plan([p], env.dataDir, env2);
    expect(r.code).toBe(0);
    expect(r.out).toContain('profile            ITEMS_*.TXT');
    expect(r.out).toContain('encoding           windows-1252');
    expect(r.out).toContain('delimiter          ";"');
    expect(r.out).toContain('header on line 2');
    expect(r.out).toMatch(/clamped to 0\s+1 /);
    expect(r.out).toContain('profile rules      duplicates sum; values "k.a." → keep; full export');
    expect(r.out).toContain('kept as they are 1');
    // GONE is named by a kept row: a full export leaves it (nothing else is held above 0).
    expect(r.out).toMatch(/absent, set to 0\s+0 /);
    // DIFF differs, NEG (0) is unknown to the portal: one call.
    expect(r.out).toMatch(/^ {2}changed\s+1$/m);
    expect(r.out).toMatch(/^ {2}unchanged\s+1$/m);
    expect(r.out).toMatch(/calls\s+1 bulk update /);
  });

  it('refuses a broken profiles file as the daemon does (exit 78), naming the profile and field', async () => {
    const profiles = join(work, 'bad-profiles.json');
    writeFileSync(profiles, JSON.stringify({ profiles: [{ match: 'X*', headerLine: -1 }] }));
    const p = file('X1.csv', 'sku,stock_quantity\nA,1\n');
    await expect(plan([p], env.dataDir, { INBOX_PROFILES_FILE: profiles })).rejects.toThrow(
      /INBOX_PROFILES_FILE: .*bad-profiles\.json: profiles\[0\] \(match "X\*"\), headerLine: /,
    );
  });

  it('needs exactly one FILE', async () => {
    await expect(plan([])).rejects.toBeInstanceOf(UsageError);
  });
});
