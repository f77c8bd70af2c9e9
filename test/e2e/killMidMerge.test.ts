/**
 * Issue #14: one file is applied all or nothing, also when the apply of a large file spans many
 * short transactions. The real daemon (a child process) ingests a 40,000-row file (eight merge
 * transactions) over an earlier one with the same keys and is killed with SIGKILL in the middle of
 * the chunked merge (after the commit point); before it: killMidApply.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ProcessHarness as Harness } from '../helpers/processHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { baseline, csv, kill, ledger, N, peek, quantities, restartAndFinish } from './killApply.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe('a kill during the merge of a large file (real daemon, SIGKILL)', () => {
  it('in the middle of the merge: after the restart the decided apply is finished, every key once', {
    timeout: 180_000,
  }, async () => {
    const harness = await baseline((x) => {
      h = x;
    });
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
