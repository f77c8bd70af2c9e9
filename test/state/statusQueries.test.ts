/**
 * The status read (`status`, `/metrics`, `health`) counts rows with indexed queries (#13 point 7):
 * no statement it runs scans a table that grows with time (the file ledger, shipments,
 * confirmations, the call and login records), whatever their size. Every statement the read
 * runs is captured on a real state.db and its query plan asked of SQLite.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { createMetrics } from '../../src/daemon/metrics.ts';
import { readStatus } from '../../src/daemon/status.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { Catalogue } from '../../src/state/products/catalogueStore.ts';
import { ProductDecisions } from '../../src/state/products/productDecisions.ts';
import { ProductRequests } from '../../src/state/products/productRequests.ts';
import { storeConfirmations } from '../../src/state/shipments/confirmations.ts';
import { ShipmentStore } from '../../src/state/shipments/shipmentStore.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

/** Tables whose rows accumulate as the daemon runs (until retention prunes them). */
const GROWING = [
  'inbox_files',
  'shipments',
  'shipment_confirmations',
  'api_calls',
  'login_attempts',
  'catalogue',
  'product_requests',
  'product_decisions',
];

let box: Sandbox;
let db: StateDb;
beforeEach(() => {
  box = makeSandbox('status-queries');
  db = openStateDb(join(box.dataDir, 'state.db'));
  // Rows as months of running leave them — most orders handed over and confirmed, a few open —
  // and statistics (ANALYZE), so that the planner chooses as it would on a real state.db.
  const now = Date.now();
  const shipments = new ShipmentStore(db);
  const orders = Array.from({ length: 400 }, (_, i) => ({ order_number: `ORD-${i}` }));
  shipments.recordPoll(orders, now);
  shipments.markExported(
    orders.slice(0, 380).map((o) => o.order_number),
    'f.json',
    now,
  );
  for (const o of orders.slice(0, 360)) shipments.markConfirmed(o.order_number, now);
  storeConfirmations(
    db,
    orders.map((o, i) => ({
      orderNumber: o.order_number,
      action: 'shipped' as const,
      carrier: 'UPS',
      trackingNumber: `T${i}`,
      isCollected: false,
      line: i + 2,
    })),
    { fileId: null, now },
  );
  // The portal's catalogue as reads found it, a few hundred products the daemon created from
  // products files, nearly all of them created and decided, a few still to create.
  db.transaction(() => {
    const catalogue = new Catalogue(db);
    const decisions = new ProductDecisions(db);
    for (let i = 0; i < 2000; i++)
      catalogue.record({ sku: `P-${i}`, platformStatus: 'active' }, now);
    const requests = new ProductRequests(db);
    const asked = Array.from({ length: 300 }, (_, i) => ({
      line: i + 2,
      draft: { sku: `NEW-${i}`, name: 'Oak chair' },
      stock: { dcs: {} },
      shortDescription: false,
    }));
    requests.queue(asked, { id: 1, name: 'new.csv' }, now);
    for (const r of requests.ofFile(1).slice(0, 290)) {
      requests.settle(r.id, { state: 'created' }, now);
      const platformStatus = r.id % 10 === 0 ? 'declined' : 'active';
      catalogue.record({ sku: r.sku, platformStatus }, now, {
        at: now,
        fileId: 1,
        fileName: 'new.csv',
      });
      decisions.record(r.sku, platformStatus, null, now);
    }
  })();
  db.exec('ANALYZE');
});
afterEach(async () => {
  db.close();
  await box.cleanup();
});

/** Every statement `read` runs on a connection of its own to the same state.db. */
function statementsOf(read: (conn: StateDb) => unknown): string[] {
  const seen: string[] = [];
  const conn = new Database(join(box.dataDir, 'state.db'), {
    verbose: (sql) => seen.push(String(sql)),
  });
  try {
    read(conn);
  } finally {
    conn.close();
  }
  return seen.filter((s) => /^\s*(SELECT|WITH)/i.test(s));
}

/**
 * The plan lines that read a growing table whole: a SCAN of the table, or of an index over all
 * its rows. A SEARCH, or a SCAN of a partial index (which holds only the rows its WHERE names,
 * such as the open shipments), reads only the rows counted.
 */
function scansOfGrowingTables(sql: string): string[] {
  const partial = new Set(
    (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '% WHERE %'")
        .all() as Array<{ name: string }>
    ).map((r) => r.name),
  );
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>;
  return plan
    .map((p) => p.detail)
    .filter((d) => {
      const m = /^SCAN (\w+)(?: USING (?:COVERING )?INDEX (\w+))?/.exec(d);
      return m !== null && GROWING.includes(m[1]!) && !(m[2] && partial.has(m[2]));
    });
}

describe('the status read', () => {
  const config = loadConfig({ env: {} });

  it('runs no statement that scans a growing table', () => {
    const statements = statementsOf((conn) => readStatus(conn, config, Date.now()));
    expect(statements.length).toBeGreaterThan(5);
    const scans = statements.flatMap((sql) =>
      scansOfGrowingTables(sql).map((d) => `${d}  <-  ${sql.replace(/\s+/g, ' ')}`),
    );
    expect(scans).toEqual([]);
  });

  it('and neither does a /metrics scrape', async () => {
    const seen: string[] = [];
    const conn = new Database(join(box.dataDir, 'state.db'), {
      verbose: (sql) => seen.push(String(sql)),
    });
    try {
      await createMetrics({ db: conn, config }).render();
    } finally {
      conn.close();
    }
    const scans = seen
      .filter((s) => /^\s*SELECT/i.test(s))
      .flatMap((sql) => scansOfGrowingTables(sql).map((d) => `${d}  <-  ${sql}`));
    expect(scans).toEqual([]);
  });
});
