/**
 * Retention through the running daemon (#13 point 7): the daemon prunes at start (and daily),
 * RETENTION_DAYS decides what is old, and the run is logged with its counts.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateDb } from '../../src/state/db.ts';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const DAY = 86_400_000;

/** A data dir as a daemon leaves it after handling a file `daysAgo` days ago. */
function handledLongAgo(dataDir: string, id: number, name: string, daysAgo: number) {
  const at = Date.now() - daysAgo * DAY;
  const stamp = new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const storedAs = `${stamp}-${id}-${name}`;
  const db = openStateDb(join(dataDir, 'state.db'));
  try {
    db.prepare(
      `INSERT INTO inbox_files (id, name, content_hash, size, kind, status, dest_name, report, received_at, committed_at, finished_at)
       VALUES (?, ?, ?, 10, 'factory_stock', 'failed', ?, '{"outcome":"failed"}', ?, ?, ?)`,
    ).run(id, name, `hash-${id}`, storedAs, at, at, at);
  } finally {
    db.close();
  }
  mkdirSync(join(dataDir, 'failed'), { recursive: true });
  writeFileSync(join(dataDir, 'failed', storedAs), 'garbage\n');
  writeFileSync(join(dataDir, 'failed', `${storedAs}.report.json`), '{"outcome":"failed"}\n');
  return join(dataDir, 'failed', storedAs);
}

describe('retention in the running daemon', () => {
  it('prunes at start what is older than RETENTION_DAYS, logging the counts', async () => {
    h = await startHarness('retention', {}, { RETENTION_DAYS: '7' });
    const old = handledLongAgo(h.box.dataDir, 1, 'old.csv', 8);
    const young = handledLongAgo(h.box.dataDir, 2, 'young.csv', 6);
    const d = await h.start();
    const line = await d.waitForEvent('retention.pruned', 20_000);
    expect(line).toMatchObject({
      retentionDays: 7,
      files: { processed: 0, failed: 1, reports: 1 },
      rows: { inboxFiles: 1, shipments: 0, confirmations: 0, inboxAttempts: 0, productRequests: 0 },
    });
    expect(existsSync(old)).toBe(false);
    expect(existsSync(`${old}.report.json`)).toBe(false);
    expect(existsSync(young)).toBe(true);
    // The daemon goes on as usual.
    h.drop('now.csv', factoryCsv([[seededSku(0), 31]]));
    await waitUntil(() => h!.sim.store.factoryStock(seededSku(0))?.stock_quantity === 31, {
      timeoutMs: 20_000,
    });
    expect(await h.stop()).toBe(0);
  });
});
