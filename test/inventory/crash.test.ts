import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recoverInbox } from '../../src/inventory/ingest/recover.ts';
import { InboxLedger } from '../../src/state/inbox/inboxLedger.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

const NODE = join(process.cwd(), 'node_modules/.bin/node');
const FIXTURE = join(process.cwd(), 'test/fixtures/ingest-crash.ts');

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('crash');
});
afterEach(async () => {
  await env.cleanup();
});

function crashAfterCommit(name: string) {
  const child = spawnSync(NODE, [FIXTURE, env.dataDir, name], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(child.signal, child.stderr).toBe('SIGKILL');
}

describe('a crash between commit and move', () => {
  it('leaves the file in inbox/; the next pass only finishes the move: applied once, one ledger row', async () => {
    env.drop('stock.csv', 'sku,stock_quantity\nA,1\nB,2\n');
    crashAfterCommit('stock.csv');

    // State after the crash: data committed, ledger row 'committed', file still in inbox/.
    expect(env.list('inbox')).toEqual(['stock.csv']);
    expect(env.list('processed')).toEqual([]);
    const ledger = new InboxLedger(env.db);
    expect(ledger.committed()).toHaveLength(1);
    expect(env.desired().map((r) => r.quantity)).toEqual([1, 2]);

    // A marker: if the file were applied again, this would be overwritten.
    env.db.prepare("UPDATE desired_stock SET quantity = 42 WHERE sku = 'A'").run();

    const out = await env.process('stock.csv');
    expect(out.status).toBe('processed');
    expect(out.ledgerId).toBe(1);
    expect(env.desired().map((r) => r.quantity)).toEqual([42, 2]);
    expect(env.list('inbox')).toEqual([]);
    expect(env.list('failed')).toEqual([]);
    expect(env.list('processed')).toHaveLength(2);
    expect(env.report(out)).toMatchObject({
      file: 'stock.csv',
      outcome: 'processed',
      rowsAccepted: 2,
    });
    expect(ledger.committed()).toEqual([]);
    expect(env.db.prepare('SELECT id, status FROM inbox_files').all()).toEqual([
      { id: 1, status: 'processed' },
    ]);
    expect(env.capture.events('file.resumed')).toHaveLength(1);
  });

  it('confirmations are stored once across the crash', async () => {
    env.drop('c.csv', 'order_number,carrier,tracking_number\nO1,UPS,T1\n');
    crashAfterCommit('c.csv');
    const out = await env.process('c.csv');
    expect(out.status).toBe('processed');
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM shipment_confirmations').get()).toEqual({
      n: 1,
    });
  });

  it('a failed file committed before the crash still ends in failed/', async () => {
    env.drop('bad.csv', 'item,qty\nA,1\n');
    crashAfterCommit('bad.csv');
    const out = await env.process('bad.csv');
    expect(out.status).toBe('failed');
    expect(env.list('failed')).toHaveLength(2);
    expect(env.list('inbox')).toEqual([]);
  });

  it('recoverInbox settles a row whose file was moved before the crash', async () => {
    env.drop('stock.csv', 'sku,stock_quantity\nA,1\n');
    crashAfterCommit('stock.csv');
    const ledger = new InboxLedger(env.db);
    const row = ledger.committed()[0]!;
    // Simulate a crash after the rename, before the final status.
    const { renameSync } = await import('node:fs');
    renameSync(join(env.paths.inbox, 'stock.csv'), join(env.paths.processed, row.destName!));
    const result = await recoverInbox(env.deps);
    expect(result).toEqual({ finished: 1, waiting: [] });
    expect(ledger.get(row.id)?.status).toBe('processed');
    expect(env.list('processed')).toEqual([row.destName, `${row.destName}.report.json`]);
  });
});
