/**
 * Issue #14: one file is applied all or nothing, also when the apply of a large file spans many
 * short transactions. The real daemon (a child process) ingests a 100,000-row file over an
 * earlier one with the same keys and is killed with SIGKILL at two moments: while the rows are
 * staged (before the commit point) and in the middle of the chunked merge (after it). State is
 * read with a read-only connection of its own, as an operator's tool would.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileReport } from '../../src/inventory/ingest/report.ts';
import {
  type ProcessHarness as Harness,
  startProcessHarness as startHarness,
} from '../helpers/processHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

const N = 100_000;
const csv = (quantity: number) =>
  `sku,stock_quantity\n${Array.from({ length: N }, (_, i) => `K${String(i).padStart(6, '0')},${quantity}`).join('\n')}\n`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

function peek<T>(h: Harness, read: (db: Database.Database) => T): T {
  const db = new Database(join(h.box.dataDir, 'state.db'), { readonly: true });
  try {
    db.pragma('busy_timeout = 5000');
    return read(db);
  } finally {
    db.close();
  }
}

const quantities = (db: Database.Database) =>
  db
    .prepare(
      "SELECT quantity, COUNT(*) AS n FROM desired_stock WHERE kind = 'factory' GROUP BY quantity ORDER BY quantity",
    )
    .all() as Array<{ quantity: number; n: number }>;
const ledger = (db: Database.Database, name: string) =>
  db.prepare('SELECT id, status FROM inbox_files WHERE name = ?').get(name) as
    | { id: number; status: string }
    | undefined;
const scratch = (h: Harness) => {
  const dir = join(h.box.dataDir, 'staging');
  return existsSync(dir) ? readdirSync(dir) : [];
};

async function baseline(): Promise<Harness> {
  const harness = await startHarness('kill-apply', {}, { API_REQUESTS_PER_HOUR: '100' });
  h = harness;
  await harness.start();
  harness.drop('base.csv', csv(1));
  await waitUntil(() => peek(harness, (db) => ledger(db, 'base.csv')?.status === 'processed'), {
    timeoutMs: 60_000,
    message: 'base.csv processed',
  });
  return harness;
}

async function kill(harness: Harness): Promise<void> {
  harness.daemon!.kill('SIGKILL');
  expect(await harness.daemon!.exited).toBe('SIGKILL');
}

async function restartAndFinish(harness: Harness): Promise<FileReport> {
  await harness.start();
  const row = await waitUntil(
    () =>
      peek(harness, (db) => {
        const r = ledger(db, 'big.csv');
        return r?.status === 'processed' ? r : undefined;
      }),
    { timeoutMs: 60_000, message: 'big.csv processed after the restart' },
  );
  const report = peek(harness, (db) =>
    JSON.parse(
      (db.prepare('SELECT report FROM inbox_files WHERE id = ?').pluck().get(row.id) as string) ??
        '{}',
    ),
  ) as FileReport;
  // All of it: every key once, from this file, at its own line.
  peek(harness, (db) => {
    expect(quantities(db)).toEqual([{ quantity: 2, n: N }]);
    expect(
      db
        .prepare(
          'SELECT COUNT(*) FROM desired_stock WHERE source_file_id = ? AND source_line = CAST(substr(sku, 2) AS INTEGER) + 2',
        )
        .pluck()
        .get(row.id),
    ).toBe(N);
    expect(db.prepare('SELECT COUNT(*) FROM staged_applies').pluck().get()).toBe(0);
  });
  expect(report.stock?.keys).toBe(N);
  expect(scratch(harness)).toEqual([]);
  return report;
}

describe('a kill during the apply of a large file (real daemon, SIGKILL)', () => {
  it('before the commit point: nothing of the file; after the restart, all of it', {
    timeout: 180_000,
  }, async () => {
    const harness = await baseline();
    harness.drop('big.csv', csv(2));
    // Staging: a scratch file exists, no apply is decided yet.
    await waitUntil(
      () =>
        scratch(harness).length > 0 &&
        peek(harness, (db) => db.prepare('SELECT COUNT(*) FROM staged_applies').pluck().get()) ===
          0,
      { timeoutMs: 30_000, intervalMs: 5, message: 'big.csv being staged' },
    );
    await kill(harness);
    peek(harness, (db) => {
      expect(ledger(db, 'big.csv')).toBeUndefined();
      expect(quantities(db)).toEqual([{ quantity: 1, n: N }]);
    });
    await restartAndFinish(harness);
  });

  it('in the middle of the merge: after the restart the decided apply is finished, every key once', {
    timeout: 180_000,
  }, async () => {
    const harness = await baseline();
    harness.drop('big.csv', csv(2));
    // Merging: the apply is decided and its cursor has moved, but not to the end.
    const merged = await waitUntil(
      () =>
        peek(harness, (db) => {
          const rows = db.prepare('SELECT rows FROM staged_applies').pluck().get() as
            | number
            | undefined;
          return rows !== undefined && rows > 0 ? rows : undefined;
        }),
      { timeoutMs: 30_000, intervalMs: 5, message: 'big.csv being merged' },
    );
    await kill(harness);
    const after = peek(harness, (db) => ({
      ledger: ledger(db, 'big.csv'),
      pending: db.prepare('SELECT rows FROM staged_applies').pluck().get() as number | undefined,
      quantities: quantities(db),
    }));
    // The kill hit the merge (this is what the test is about), with the apply recorded as decided.
    expect(after.ledger?.status).toBe('committed');
    expect(after.pending).toBeGreaterThanOrEqual(merged);
    expect(after.pending).toBeLessThan(N);
    const report = await restartAndFinish(harness);
    expect(report.outcome).toBe('processed');
    expect(harness.daemon!.lines.filter((l) => l.event === 'ingest.apply_resumed')).toHaveLength(1);
  });
});
