/**
 * Issue #14: one file is applied all or nothing, also when the apply of a large file spans many
 * short transactions. The real daemon (a child process) ingests a 40,000-row file (eight merge
 * transactions) over an earlier one with the same keys and is killed with SIGKILL while the rows
 * are staged (before the commit point); in the middle of the chunked merge (after it):
 * killMidMerge.test.ts. State is read with a read-only connection of its own, as an operator's
 * tool would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ProcessHarness as Harness } from '../helpers/processHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import {
  baseline,
  csv,
  kill,
  ledger,
  N,
  peek,
  quantities,
  restartAndFinish,
  scratch,
} from './killApply.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe('a kill during the apply of a large file (real daemon, SIGKILL)', () => {
  it('before the commit point: nothing of the file; after the restart, all of it', {
    timeout: 180_000,
  }, async () => {
    const harness = await baseline((x) => {
      h = x;
    });
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
});
