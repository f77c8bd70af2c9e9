import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSnapshot, type SnapshotDeps } from '../../src/inventory/snapshot/read.ts';
import { SnapshotWatcher } from '../../src/inventory/snapshot/watcher.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { RemoteStock } from '../../src/state/stock/remoteStock.ts';
import { rederiveOffers, setStockRules } from '../../src/state/stock/ruleOffers.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { type IngestEnv, makeIngestEnv, snapshotDeps, writeSnapshotDb } from './helpers.ts';

let env: IngestEnv;
let snapPath: string;
beforeEach(() => {
  env = makeIngestEnv('snapshot');
  snapPath = join(env.dataDir, 'erp', 'snapshot.db');
});
afterEach(async () => {
  await env.cleanup();
});

const deps = (extra: Partial<SnapshotDeps> = {}) => snapshotDeps(env, snapPath, extra);

describe('readSnapshot', () => {
  it('maps ERP location codes before the check and stores offered quantities (stock rules)', async () => {
    writeSnapshotDb(
      snapPath,
      [
        ['A', 10],
        ['DISC-1', 4],
      ],
      [
        ['WH-1', 'A', 10],
        ['DC2', 'A', 3],
        ['WH-UNKNOWN', 'A', 1],
      ],
    );
    setStockRules(env.db, [
      { sku: 'DISC-*', exclude: true },
      { kind: 'dc', dc: 'DC1', buffer: 2 },
    ]);
    rederiveOffers(env.db, 1);
    const out = await readSnapshot(deps({ locations: { 'WH-1': 'DC1' } }));
    expect(out).toMatchObject({
      status: 'read',
      dc: { rowsRead: 3, rowsAccepted: 2, rowsRejected: 1, locationsMapped: 1 },
      factory: { locationsMapped: 0 },
      pendingKeys: 3,
      // Both kinds: factory A 10 and DISC-1 4 (excluded), DC1/A 10 → 8, DC2/A 3.
      offers: { erpUnits: 27, offeredUnits: 21, adjusted: 1, excluded: 1 },
    });
    expect(
      env.db
        .prepare(
          'SELECT kind, dc, sku, erp_quantity, quantity, excluded FROM desired_stock ORDER BY 1, 2, 3',
        )
        .raw()
        .all(),
    ).toEqual([
      ['dc', 'DC1', 'A', 10, 8, 0],
      ['dc', 'DC2', 'A', 3, 3, 0],
      ['factory', '', 'A', 10, 10, 0],
      ['factory', '', 'DISC-1', 4, 4, 1],
    ]);
  });

  it('reads both tables with the default queries, validates rows, stores desired stock', async () => {
    writeSnapshotDb(
      snapPath,
      [
        ['A', 1],
        ['B', '2'],
        ['', 3],
        ['C', 1.5],
        ['A', 4],
      ],
      [
        ['DC1', 'A', 5],
        ['NOPE', 'A', 1],
        ['DC2', 'B', -1],
      ],
    );
    const out = await readSnapshot(deps());
    expect(out).toMatchObject({
      status: 'read',
      factory: { rowsRead: 5, rowsAccepted: 3, rowsRejected: 2, duplicateRows: 1 },
      dc: { rowsRead: 3, rowsAccepted: 1, rowsRejected: 2 },
      pendingKeys: 3,
    });
    expect(env.desired()).toEqual([
      { kind: 'dc', dc: 'DC1', sku: 'A', quantity: 5, source: 'snapshot' },
      { kind: 'factory', dc: '', sku: 'A', quantity: 4, source: 'snapshot' },
      { kind: 'factory', dc: '', sku: 'B', quantity: 2, source: 'snapshot' },
    ]);
    expect(env.capture.events('snapshot.read')[0]).toMatchObject({ factory: { rowsAccepted: 3 } });
    expect(env.capture.events('snapshot.rows_rejected')[0]?.rejected).toBe(4);
  });

  it('leaves SKUs that are not in the snapshot as they are', async () => {
    env.drop('s.csv', 'sku,stock_quantity\nKEEP,9\n');
    await env.process('s.csv');
    writeSnapshotDb(snapPath, [['A', 1]], []);
    await readSnapshot(deps());
    expect(env.desired().map((r) => `${r.sku}=${r.quantity}`)).toEqual(['A=1', 'KEEP=9']);
  });

  it('runs custom queries', async () => {
    mkdirSync(join(snapPath, '..'), { recursive: true });
    const db = new Database(snapPath);
    db.exec(`CREATE TABLE items (code TEXT, on_hand INTEGER, site TEXT);
             INSERT INTO items VALUES ('X', 3, 'factory'), ('Y', 4, 'DC1');`);
    db.close();
    const out = await readSnapshot(
      deps({
        factoryQuery:
          "SELECT code AS sku, on_hand AS stock_quantity FROM items WHERE site = 'factory'",
        dcQuery:
          "SELECT site AS distribution_centre_code, code AS sku, on_hand AS stock_quantity FROM items WHERE site != 'factory'",
      }),
    );
    expect(out.status).toBe('read');
    expect(env.desired().map((r) => `${r.kind}:${r.dc}:${r.sku}=${r.quantity}`)).toEqual([
      'dc:DC1:Y=4',
      'factory::X=3',
    ]);
  });

  it('a query without the needed columns fails clearly', async () => {
    writeSnapshotDb(snapPath, [], []);
    const out = await readSnapshot(deps({ factoryQuery: 'SELECT sku FROM factory_stock' }));
    expect(out).toMatchObject({ status: 'failed', code: 'query' });
    expect(out.status === 'failed' && out.reason).toContain('missing: stock_quantity');
  });

  it('a missing file is a clear failure, not a crash', async () => {
    const out = await readSnapshot(deps());
    expect(out).toMatchObject({ status: 'failed', code: 'missing' });
    expect(env.capture.events('snapshot.failed')[0]).toMatchObject({ code: 'missing' });
  });

  it('a corrupt file is a clear failure, not a crash', async () => {
    mkdirSync(join(snapPath, '..'), { recursive: true });
    writeFileSync(snapPath, 'this is not a database, just text that goes on '.repeat(100));
    const out = await readSnapshot(deps());
    expect(out).toMatchObject({ status: 'failed', code: 'corrupt' });
    expect(env.capture.events('snapshot.failed')[0]?.reason).toContain('corrupt');
    expect(env.desired()).toEqual([]);
  });

  it('a missing table is a clear failure', async () => {
    mkdirSync(join(snapPath, '..'), { recursive: true });
    new Database(snapPath).close();
    const out = await readSnapshot(deps());
    expect(out).toMatchObject({ status: 'failed', code: 'query' });
    expect(out.status === 'failed' && out.reason).toContain('no such table');
  });

  it('lets a later file apply the same content again after a snapshot wrote in between', async () => {
    env.drop('a.csv', 'sku,stock_quantity\nA,1\n');
    await env.process('a.csv');
    writeSnapshotDb(snapPath, [['A', 5]], []);
    await readSnapshot(deps());
    env.drop('a2.csv', 'sku,stock_quantity\nA,1\n');
    expect((await env.process('a2.csv')).status).toBe('processed');
    expect(env.desired()[0]?.quantity).toBe(1);
  });
});

describe('readSnapshot with SNAPSHOT_ABSENT=zero', () => {
  beforeEach(() => {
    new RemoteStock(env.db).storeRead(
      [
        { kind: 'factory', dc: '', sku: 'A', quantity: 3, platformSku: null },
        { kind: 'factory', dc: '', sku: 'GONE', quantity: 3, platformSku: null },
        { kind: 'dc', dc: 'DC1', sku: 'GONE', quantity: 2, platformSku: null },
        { kind: 'dc', dc: 'DC2', sku: 'GONE', quantity: 2, platformSku: null },
      ],
      1,
    );
  });

  it('zeroes the keys held above 0 that the snapshot omits (DC stock: at the centres it names)', async () => {
    new KeyValueStore(env.db).set('remote.read_at.factory', 1);
    new KeyValueStore(env.db).set('remote.read_at.dc', 1);
    writeSnapshotDb(snapPath, [['A', 3]], [['DC1', 'A', 5]]);
    const out = await readSnapshot(deps({ absent: 'zero' }));
    expect(out).toMatchObject({ status: 'read', absentZeroed: { factory: 1, dc: 1 } });
    expect(env.desired().map((r) => `${r.kind}:${r.dc}:${r.sku}=${r.quantity}`)).toEqual([
      'dc:DC1:A=5',
      'dc:DC1:GONE=0',
      'factory::A=3',
      'factory::GONE=0',
    ]);
    expect(env.capture.events('snapshot.read')[0]).toMatchObject({
      absentZeroed: { factory: 1, dc: 1 },
    });
  });

  it('keep (the default) leaves them', async () => {
    writeSnapshotDb(snapPath, [['A', 3]], []);
    const out = await readSnapshot(deps());
    expect(out).toMatchObject({ status: 'read', absentZeroed: { factory: 0, dc: 0 } });
    expect(env.desired()).toHaveLength(1);
  });

  it('reads the portal first where a kind was never read; a read that fails leaves all as it was', async () => {
    writeSnapshotDb(snapPath, [['A', 3]], [['DC1', 'A', 5]]);
    const failed = await readSnapshot(deps({ absent: 'zero', readPortalStock: async () => false }));
    expect(failed).toMatchObject({ status: 'failed', code: 'portal_unknown' });
    expect(env.desired()).toEqual([]);

    const reads: string[] = [];
    const out = await readSnapshot(
      deps({
        absent: 'zero',
        readPortalStock: async (kind) => {
          reads.push(kind);
          new KeyValueStore(env.db).set(`remote.read_at.${kind}`, 2);
          return true;
        },
      }),
    );
    expect(reads).toEqual(['factory', 'dc']);
    expect(out).toMatchObject({ status: 'read', absentZeroed: { factory: 1, dc: 1 } });
  });
});

describe('SnapshotWatcher', () => {
  it('fires on a change in place and when the file is replaced by a rename, debounced', async () => {
    writeSnapshotDb(snapPath, [['A', 1]], []);
    let calls = 0;
    const watcher = new SnapshotWatcher({
      path: snapPath,
      log: env.capture.log,
      debounceMs: 100,
      onChange: async () => {
        calls++;
        return readSnapshot(deps());
      },
    });
    await watcher.start();
    try {
      const db = new Database(snapPath);
      db.prepare("UPDATE factory_stock SET stock_quantity = 2 WHERE sku = 'A'").run();
      db.close();
      await waitUntil(() => env.desired()[0]?.quantity === 2, { message: 'change in place read' });
      const firstCalls = calls;

      const next = join(snapPath, '..', 'snapshot.db.new');
      writeSnapshotDb(next, [['A', 3]], []);
      renameSync(next, snapPath);
      await waitUntil(() => env.desired()[0]?.quantity === 3, { message: 'replaced file read' });
      expect(calls).toBeGreaterThan(firstCalls);
    } finally {
      await watcher.stop();
    }
  });

  it('retries after a failed read', async () => {
    let calls = 0;
    const watcher = new SnapshotWatcher({
      path: snapPath,
      log: env.capture.log,
      debounceMs: 20,
      retryMs: 100,
      onChange: async () => {
        calls++;
        return readSnapshot(deps());
      },
    });
    await watcher.start();
    try {
      watcher.trigger(); // a scheduled read while the file is missing
      await waitUntil(() => calls >= 1, { message: 'first read' });
      writeSnapshotDb(snapPath, [['R', 7]], []);
      await waitUntil(() => env.desired()[0]?.quantity === 7, { message: 'read after retry' });
    } finally {
      await watcher.stop();
    }
  });
});
