import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

/** strace is there and may trace a child here (some containers forbid ptrace). */
const canTrace = spawnSync('strace', ['-qq', '-o', '/dev/null', 'true']).status === 0;

interface Call {
  readonly name: string;
  readonly args: string;
}

/**
 * Runs the ingestion of one file in a child process under strace and returns its flushes,
 * renames and writes, in the order they were started (a call split over threads is taken at its
 * start; the code awaits each one, so a call has finished when the next one starts).
 */
function traceIngest(dataDir: string, name: string): Call[] {
  const out = join(dataDir, 'strace.txt');
  const fixture = join(import.meta.dirname, '../fixtures/ingest-once.ts');
  const r = spawnSync(
    'strace',
    [
      '-f',
      '-y',
      '-qq',
      '-s',
      '0',
      '-e',
      'trace=fsync,fdatasync,rename,renameat,renameat2,pwrite64',
      '-o',
      out,
      process.execPath,
      fixture,
      dataDir,
      name,
    ],
    { encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout).status).toBe('processed');
  const calls: Call[] = [];
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    const m = /^\d+\s+(\w+)\((.*)$/.exec(line);
    if (m === null || line.includes('resumed>')) continue;
    calls.push({ name: m[1]!, args: m[2]! });
  }
  return calls;
}

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox('durability');
  for (const d of ['inbox', 'processed', 'failed', 'outbox']) {
    mkdirSync(join(box.dataDir, d), { recursive: true });
  }
});
afterEach(async () => {
  await box.cleanup();
});

describe('power loss (#13 point 5): the order of commits, renames and flushes', () => {
  it.skipIf(!canTrace)(
    'flushes the commit before the file leaves inbox/, and both folders after the move',
    () => {
      writeFileSync(join(box.dataDir, 'inbox', 'stock.csv'), 'sku,stock_quantity\nA,1\n');
      const calls = traceIngest(box.dataDir, 'stock.csv');
      const processed = `${join(box.dataDir, 'processed')}>`;
      const inbox = `${join(box.dataDir, 'inbox')}>`;
      const isWalWrite = (c: Call) => c.name === 'pwrite64' && c.args.includes('state.db-wal>');
      const isWalSync = (c: Call) => c.name === 'fsync' && c.args.includes('state.db-wal>');
      const isRename = (c: Call) => c.name.startsWith('rename');
      const syncOf = (folder: string) => (c: Call) =>
        c.name === 'fsync' && c.args.startsWith(`${/^\d+/.exec(c.args)?.[0]}<${folder}`);

      const move = calls.findIndex((c) => isRename(c) && c.args.includes('/inbox/stock.csv"'));
      expect(move, 'the rename out of inbox/').toBeGreaterThan(0);
      const report = calls.findIndex((c) => isRename(c) && c.args.includes('.report.json"'));
      expect(report, 'the report rename').toBeGreaterThan(0);
      expect(report).toBeLessThan(move);

      // The commit (the last WAL write before the report) is flushed before the report and the
      // move: with synchronous = NORMAL it was not, and a power loss could take it back.
      const lastWrite = calls.slice(0, report).findLastIndex(isWalWrite);
      expect(lastWrite).toBeGreaterThan(0);
      expect(
        calls.slice(lastWrite, report).some(isWalSync),
        'fsync of the WAL after the commit',
      ).toBe(true);

      // The report's rename is flushed (its folder) before the file moves.
      expect(calls.slice(report, move).some(syncOf(processed))).toBe(true);

      // The move is flushed (both folders) before the ledger row is finished (the next write).
      const finish = calls.slice(move).findIndex(isWalWrite);
      expect(finish, 'the ledger row finished after the move').toBeGreaterThan(0);
      const afterMove = calls.slice(move, move + finish);
      expect(afterMove.some(syncOf(processed)), 'fsync of processed/ after the move').toBe(true);
      expect(afterMove.some(syncOf(inbox)), 'fsync of inbox/ after the move').toBe(true);
      // And that last write is flushed as well.
      expect(calls.slice(move + finish).some(isWalSync)).toBe(true);
    },
  );
});
