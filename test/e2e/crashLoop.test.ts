/**
 * A crash is an attempt (issue #28 point 1): a file whose reading the daemon does not survive is
 * counted before it is read, so that a file that kills the process every time it is read goes to
 * failed/ after three crashes instead of killing every restart for ever. The real daemon as a
 * child process, SIGKILLed while it reads a large file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { factoryCsv, seededSku } from '../helpers/daemonHarness.ts';
import { type ProcessHarness, startProcessHarness } from '../helpers/processHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: ProcessHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const BIG = 'big-stock.csv';

/** The attempts state.db counts for `name` (0 when none), read through a connection of its own. */
function attemptsAt(dataDir: string, name: string): number {
  const path = join(dataDir, 'state.db');
  if (!existsSync(path)) return 0;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare<[string], { n: number }>(
        'SELECT COALESCE(SUM(attempts), 0) AS n FROM inbox_attempts WHERE name = ?',
      )
      .get(name);
    return row?.n ?? 0;
  } catch {
    return 0; // the table is not there yet (the daemon is migrating)
  } finally {
    db.close();
  }
}

it('sends a file whose reading ended in a crash three times to failed/, unread, and goes on', {
  timeout: 120_000,
}, async () => {
  // Each restart waits for the killed process's ingest job lock to lapse: 2 s, the shortest a
  // lock is renewed safely (every second) while nothing here keeps the event loop busy long.
  h = await startProcessHarness('crash-loop', { products: 50 }, { JOB_LOCK_MS: '2000' });
  const inbox = (name: string) => join(h!.box.dataDir, 'inbox', name);
  // 400,000 rows (~8 MB): reading it takes far longer than the few milliseconds to the kill.
  const rows = Array.from({ length: 400_000 }, (_, i) => [seededSku(i % 50), i % 97] as const);
  const big = factoryCsv(rows);

  for (let crash = 1; crash <= 3; crash++) {
    const d = await h.start();
    if (crash === 1) h.drop(BIG, big);
    // The attempt is in state.db before a row is read: kill the process as soon as it is.
    await waitUntil(() => attemptsAt(h!.box.dataDir, BIG) >= crash, {
      timeoutMs: 30_000,
      intervalMs: 5,
      message: `attempt ${crash} recorded before reading ${BIG}`,
    });
    // Its log line follows the record by a moment: a kill in between would lose it.
    if (crash > 1) {
      await d.waitFor(
        (l) => l.event === 'file.reading_again' && l.attempt === crash,
        30_000,
        'file.reading_again',
      );
    }
    d.kill('SIGKILL');
    expect(await d.exited).toBe('SIGKILL');
    // Killed mid-read: nothing of the file was finished.
    expect(existsSync(inbox(BIG)), `crash ${crash}: the file left inbox/`).toBe(true);
    expect(readdirSync(join(h.box.dataDir, 'processed'))).toEqual([]);
    expect(attemptsAt(h.box.dataDir, BIG)).toBe(crash);
    if (crash > 1) {
      expect(d.lines.some((l) => l.event === 'file.reading_again' && l.attempt === crash)).toBe(
        true,
      );
    }
  }

  // The fourth start gives the file up without reading it again.
  const d = await h.start();
  const failed = await d.waitFor(
    (l) => l.event === 'file.failed' && l.file === BIG,
    30_000,
    'the crashing file failed',
  );
  expect(String(failed.reason)).toMatch(/the reading of this file ended in a crash 3 times/);
  expect(d.lines.some((l) => l.event === 'file.reading_again')).toBe(false);
  expect(existsSync(inbox(BIG))).toBe(false);
  const failedDir = join(h.box.dataDir, 'failed');
  const reportName = readdirSync(failedDir).find((f) => f.endsWith('.report.json'));
  expect(reportName).toBeDefined();
  const report = JSON.parse(readFileSync(join(failedDir, reportName!), 'utf8'));
  expect(report).toMatchObject({ file: BIG, outcome: 'failed', rowsRead: 0 });
  expect(report.reason).toMatch(/ended in a crash 3 times .*killed, or out of memory/);
  // The count is dropped once the file is handled (right after the failure is logged).
  await waitUntil(() => attemptsAt(h!.box.dataDir, BIG) === 0, {
    timeoutMs: 10_000,
    message: 'the attempts of the failed file forgotten',
  });

  // A good file after it is applied.
  h.drop('good.csv', factoryCsv([[seededSku(1), 4242]]));
  await waitUntil(() => h!.sim.store.factoryStock(seededSku(1))?.stock_quantity === 4242, {
    timeoutMs: 30_000,
    message: 'the good file applied',
  });
  expect(readdirSync(join(h.box.dataDir, 'processed')).some((f) => f.endsWith('-good.csv'))).toBe(
    true,
  );
  expect(await h.stop()).toBe(0);
});
