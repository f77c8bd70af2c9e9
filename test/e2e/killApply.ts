/**
 * What the two kill-during-apply tests share (killMidApply, killMidMerge): a daemon as a real
 * process that has applied a 40,000-row file, and state read with a read-only connection of
 * its own, as an operator's tool would.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { FileReport } from '../../src/inventory/ingest/report.ts';
import {
  type ProcessHarness as Harness,
  startProcessHarness as startHarness,
} from '../helpers/processHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

/** Rows of each file: eight merge transactions of DEFAULT_CHUNK_ROWS (5,000) keys. */
export const N = 40_000;
export const csv = (quantity: number) =>
  `sku,stock_quantity\n${Array.from({ length: N }, (_, i) => `K${String(i).padStart(6, '0')},${quantity}`).join('\n')}\n`;

export function peek<T>(h: Harness, read: (db: Database.Database) => T): T {
  const db = new Database(join(h.box.dataDir, 'state.db'), { readonly: true });
  try {
    db.pragma('busy_timeout = 5000');
    return read(db);
  } finally {
    db.close();
  }
}

export const quantities = (db: Database.Database) =>
  db
    .prepare(
      "SELECT quantity, COUNT(*) AS n FROM desired_stock WHERE kind = 'factory' GROUP BY quantity ORDER BY quantity",
    )
    .all() as Array<{ quantity: number; n: number }>;
export const ledger = (db: Database.Database, name: string) =>
  db.prepare('SELECT id, status FROM inbox_files WHERE name = ?').get(name) as
    | { id: number; status: string }
    | undefined;
export const scratch = (h: Harness) => {
  const dir = join(h.box.dataDir, 'staging');
  return existsSync(dir) ? readdirSync(dir) : [];
};

/** A daemon that has applied base.csv (every key at 1); `keep` is given it at once, for cleanup. */
export async function baseline(keep: (h: Harness) => void): Promise<Harness> {
  const harness = await startHarness('kill-apply', {}, { API_REQUESTS_PER_HOUR: '100' });
  keep(harness);
  await harness.start();
  harness.drop('base.csv', csv(1));
  await waitUntil(() => peek(harness, (db) => ledger(db, 'base.csv')?.status === 'processed'), {
    timeoutMs: 60_000,
    message: 'base.csv processed',
  });
  return harness;
}

export async function kill(harness: Harness): Promise<void> {
  harness.daemon!.kill('SIGKILL');
  expect(await harness.daemon!.exited).toBe('SIGKILL');
}

export async function restartAndFinish(harness: Harness): Promise<FileReport> {
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
