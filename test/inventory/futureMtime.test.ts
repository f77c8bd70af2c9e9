import { mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sourceTime } from '../../src/domain/sourceTime.ts';
import { fileSourceTime } from '../../src/inventory/ingest/fileSourceTime.ts';
import { readSnapshot } from '../../src/inventory/snapshot/read.ts';
import { openStateDb } from '../../src/state/db.ts';
import { migrations } from '../../src/state/migrations/index.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('future-mtime');
});
afterEach(async () => {
  await env.cleanup();
});

const in2030 = new Date('2030-01-01T00:00:00Z');

describe('a file dated in the future (#13 point 4)', () => {
  it('does not pin its rows: file A (2030, X=5) then file B (now, X=7) leaves X=7', async () => {
    const a = env.drop('a.csv', 'sku,stock_quantity\nX,5\nY,1\n');
    utimesSync(a, in2030, in2030);
    const outA = await env.process('a.csv');
    expect(outA.status).toBe('processed');
    const warned = env.capture.events('file.future_mtime');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({
      level: 'warn',
      file: 'a.csv',
      mtime: '2030-01-01T00:00:00.000Z',
    });
    expect(warned[0]!.aheadMs).toBeGreaterThan(0);

    env.drop('b.csv', 'sku,stock_quantity\nX,7\n');
    const outB = await env.process('b.csv');
    expect(outB.status).toBe('processed');
    expect(env.report(outB).stock).toMatchObject({ supersededByNewerFile: 0 });
    expect(env.desired().map((r) => [r.sku, r.quantity])).toEqual([
      ['X', 7],
      ['Y', 1],
    ]);
    expect(env.capture.events('file.future_mtime')).toHaveLength(1); // B is not in the future
  });

  it('still lets a newer file win over an older one applied late', async () => {
    env.drop('new.csv', 'sku,stock_quantity\nX,7\n');
    await env.process('new.csv');
    const old = env.drop('old.csv', 'sku,stock_quantity\nX,5\n');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(old, hourAgo, hourAgo);
    const out = await env.process('old.csv');
    expect(env.report(out).stock).toMatchObject({ supersededByNewerFile: 1 });
    expect(env.desired().map((r) => [r.sku, r.quantity])).toEqual([['X', 7]]);
    expect(env.capture.events('file.future_mtime')).toEqual([]);
  });

  it('does not let a snapshot dated in the future pin its rows either', async () => {
    const snap = join(env.dataDir, 'erp', 'snapshot.db');
    mkdirSync(join(env.dataDir, 'erp'));
    const erp = new Database(snap);
    erp.exec(`CREATE TABLE factory_stock (sku TEXT, stock_quantity);
              CREATE TABLE dc_stock (distribution_centre_code TEXT, sku TEXT, stock_quantity);
              INSERT INTO factory_stock VALUES ('X', 5);`);
    erp.close();
    utimesSync(snap, in2030, in2030);
    const read = await readSnapshot({
      db: env.db,
      log: env.capture.log,
      snapshotDb: snap,
      dataDir: env.dataDir,
      factoryQuery: 'SELECT sku, stock_quantity FROM factory_stock',
      dcQuery: 'SELECT distribution_centre_code, sku, stock_quantity FROM dc_stock',
      dcDirectory: env.dcDirectory,
      maxSkuLength: 64,
    });
    expect(read.status).toBe('read');
    env.drop('b.csv', 'sku,stock_quantity\nX,7\n');
    const out = await env.process('b.csv');
    expect(env.report(out).stock).toMatchObject({ supersededByNewerFile: 0 });
    expect(env.desired().map((r) => [r.sku, r.quantity])).toEqual([['X', 7]]);
  });

  it('orders by min(written, seen) and warns only beyond a minute ahead', () => {
    expect(sourceTime(1_000.7, 5_000)).toEqual({ at: 1_000, aheadMs: 0, future: false });
    expect(sourceTime(65_000, 5_000)).toEqual({ at: 5_000, aheadMs: 60_000, future: false });
    expect(sourceTime(65_001, 5_000)).toEqual({ at: 5_000, aheadMs: 60_001, future: true });
    // A file read again later (a retry) keeps the time it arrived: its change time.
    const log = env.capture.log;
    const in2030ms = in2030.getTime();
    expect(fileSourceTime('a.csv', { mtimeMs: in2030ms, ctimeMs: 1_000.9 }, 5_000, log)).toBe(
      1_000,
    );
    expect(fileSourceTime('a.csv', { mtimeMs: in2030ms, ctimeMs: 9_000 }, 5_000, log)).toBe(5_000);
    expect(fileSourceTime('b.csv', { mtimeMs: 800, ctimeMs: 1_000 }, 5_000, log)).toBe(800);
    expect(env.capture.events('file.future_mtime').map((l) => l.seenAt)).toEqual([
      new Date(1_000).toISOString(),
      new Date(5_000).toISOString(),
    ]);
  });

  it('brings rows pinned before the fix under the rule when state.db is migrated', () => {
    const version = 11;
    const before = migrations.filter((m) => m.version < version);
    const dir = env.paths.processed; // any folder of the sandbox
    const db = openStateDb(`${dir}/old-state.db`, { migrations: before });
    const insert = db.prepare(
      `INSERT INTO desired_stock (kind, dc, sku, quantity, source, updated_at, source_at)
       VALUES ('factory', '', ?, 1, 'file:1', ?, ?)`,
    );
    insert.run('PINNED', 1_000, in2030.getTime());
    insert.run('FINE', 2_000, 1_500);
    db.close();
    const migrated = openStateDb(`${dir}/old-state.db`);
    expect(migrated.prepare('SELECT sku, source_at FROM desired_stock ORDER BY sku').all()).toEqual(
      [
        { sku: 'FINE', source_at: 1_500 },
        { sku: 'PINNED', source_at: 1_000 },
      ],
    );
    migrated.close();
  });
});
