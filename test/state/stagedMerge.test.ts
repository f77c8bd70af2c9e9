/**
 * The two ways of merging a staged chunk (src/state/staging/stagedMerge.ts) agree: the plain one (no stock
 * rules) against the ruled one under a rule that matches nothing, from the same random state
 * (stored rows older and newer than the source, known remote quantities, pending keys, stored
 * failures) and the same staged set, in random chunk sizes. Real SQLite files, in memory (fsync is
 * not what is tested here).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { StagingFile } from '../../src/inventory/staging/stagingFile.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import {
  attachStaged,
  detachStaged,
  mergeStagedChunk,
  recordStagedApply,
} from '../../src/state/staging/stagedApplyTable.ts';
import type { ApplyResult } from '../../src/state/stock/desiredStock.ts';
import { setStockRules } from '../../src/state/stock/ruleOffers.ts';
import { memoryTempDir } from '../helpers/sandbox.ts';

const dir = memoryTempDir('staged-merge-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SOURCE_AT = 1_000;
const key = fc.record({
  kind: fc.constantFrom('factory', 'dc'),
  dc: fc.constantFrom('DC-1', 'DC-2'),
  sku: fc.constantFrom(...Array.from({ length: 12 }, (_, i) => `S${i}`)),
});
const quantity = fc.integer({ min: 0, max: 3 });
const state = fc.record({
  desired: fc.array(
    fc.record({ key, quantity, sourceAt: fc.constantFrom(500, SOURCE_AT, 2_000) }),
    { maxLength: 20 },
  ),
  remote: fc.array(fc.record({ key, quantity }), { maxLength: 20 }),
  pending: fc.array(key, { maxLength: 10 }),
  failures: fc.array(fc.record({ key, quantity }), { maxLength: 10 }),
  staged: fc.array(fc.record({ key, quantity }), { minLength: 1, maxLength: 30 }),
  chunk: fc.integer({ min: 1, max: 8 }),
});
type State = typeof state extends fc.Arbitrary<infer T> ? T : never;

const norm = (k: State['staged'][number]['key']) => ({ ...k, dc: k.kind === 'dc' ? k.dc : '' });

let n = 0;
function run(s: State, rules: boolean) {
  const path = join(dir, `state-${n++}.db`);
  const db = openStateDb(path);
  try {
    if (rules) setStockRules(db, [{ sku: 'NO-SUCH-SKU', percent: 50 }]);
    seed(db, s);
    const staging = StagingFile.create(dir);
    s.staged.forEach((r, i) => {
      const k = norm(r.key);
      staging.put(k.kind, k.dc, k.sku, r.quantity, i + 2);
    });
    staging.close();
    attachStaged(db, staging.path);
    const id = db
      .transaction(() =>
        recordStagedApply(db, {
          stagedFile: staging.name,
          source: 'file:7',
          fileId: 7,
          sourceAt: SOURCE_AT,
          appliedAt: 5_000,
        }),
      )
      .immediate();
    let totals: ApplyResult | undefined;
    for (;;) {
      const r = mergeStagedChunk(db, id, s.chunk);
      // A chunk commits unflushed and checkpoints late; nothing after it does.
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      if (r.done) {
        totals = r.totals;
        break;
      }
    }
    detachStaged(db);
    staging.discard();
    const all = (sql: string) => db.prepare(sql).all();
    return {
      totals,
      desired: all(
        'SELECT kind, dc, sku, quantity, erp_quantity, rule, excluded, source, source_at, source_line, updated_at FROM desired_stock ORDER BY kind, dc, sku',
      ),
      pending: all('SELECT kind, dc, sku, since FROM pending_stock ORDER BY kind, dc, sku'),
      failures: all('SELECT kind, dc, sku, quantity FROM stock_failures ORDER BY kind, dc, sku'),
    };
  } finally {
    db.close();
  }
}

function seed(db: StateDb, s: State): void {
  const desired = db.prepare(
    `INSERT OR REPLACE INTO desired_stock (kind, dc, sku, quantity, source, updated_at, source_at, erp_quantity, excluded)
     VALUES (@kind, @dc, @sku, @quantity, 'file:1', 1, @sourceAt, @quantity, 0)`,
  );
  for (const d of s.desired)
    desired.run({ ...norm(d.key), quantity: d.quantity, sourceAt: d.sourceAt });
  const remote = db.prepare(
    `INSERT OR REPLACE INTO remote_stock (kind, dc, sku, quantity, seen_at) VALUES (@kind, @dc, @sku, @quantity, 1)`,
  );
  for (const r of s.remote) remote.run({ ...norm(r.key), quantity: r.quantity });
  const pending = db.prepare(
    `INSERT OR IGNORE INTO pending_stock (kind, dc, sku, since) VALUES (@kind, @dc, @sku, 1)`,
  );
  for (const p of s.pending) pending.run(norm(p));
  const failure = db.prepare(
    `INSERT OR REPLACE INTO stock_failures (kind, dc, sku, quantity, error, attempts, first_failed_at, last_failed_at, next_attempt_at)
     VALUES (@kind, @dc, @sku, @quantity, 'E', 1, 1, 1, 1)`,
  );
  for (const f of s.failures) failure.run({ ...norm(f.key), quantity: f.quantity });
}

describe('merging a staged chunk', () => {
  it('gives the same stock, pending keys, failures and counts without rules as with rules that match nothing', () => {
    fc.assert(
      fc.property(state, (s) => {
        const plain = run(s, false);
        const ruled = run(s, true);
        expect(plain).toEqual(ruled);
      }),
      { numRuns: 100 },
    );
  });
});
