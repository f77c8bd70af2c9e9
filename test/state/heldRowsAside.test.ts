/**
 * A staged set's rows kept aside for an entry the guard rails hold (src/state/inbox/
 * heldRowsAside.ts), in steps: no entry has them until HeldStore.hold records it, the entry then
 * has exactly the set's rows, and rows a crash left without their entry are gone before the next
 * set's are kept. A real state.db and a real scratch database attached as `staged`.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WalCheckpoints } from '../../src/inventory/apply/walCheckpoints.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { keepRowsAside } from '../../src/state/inbox/heldRowsAside.ts';
import { HeldStore, type NewHeld } from '../../src/state/inbox/heldStore.ts';
import { attachStaged, detachStaged } from '../../src/state/staging/stagedApplyTable.ts';
import { openStagingDb } from '../../src/state/staging/stagingWriter.ts';
import { memoryTempDir } from '../helpers/sandbox.ts';

const dir = memoryTempDir('held-aside-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let db: StateDb;
let sets = 0;
beforeEach(() => {
  db = openStateDb(join(dir, `state-${sets}.db`));
});
afterEach(() => {
  detachStaged(db);
  db.close();
});

/** A staged set of `n` factory rows (SKUs from `from`) and one DC row, attached as `staged`. */
function stage(n: number, from = 0): void {
  detachStaged(db);
  const path = join(dir, `set-${sets++}.db`);
  const set = openStagingDb(path, true);
  const insert = set.prepare(
    "INSERT INTO rows (kind, dc, sku, quantity, line) VALUES ('factory', '', ?, ?, 2)",
  );
  set.transaction(() => {
    for (let i = from; i < from + n; i++) insert.run(`S${String(i).padStart(6, '0')}`, i % 7);
  })();
  set.prepare("INSERT INTO rows VALUES ('dc', 'DC1', 'S000000', 3, 2)").run();
  set.close();
  attachStaged(db, path);
}

const entry = (name: string): NewHeld => ({
  source: 'file',
  fileId: null,
  name,
  storedAs: null,
  kind: 'factory_stock',
  contentHash: name,
  reason: 'held by the test',
  report: '{}',
  sourceAt: 0,
  heldAt: 0,
});
const rowsOf = (id: number) => [...new HeldStore(db).rows(id)];
const heldRows = () => db.prepare('SELECT COUNT(*) FROM held_rows').pluck().get() as number;

describe('rows kept aside for a held entry', () => {
  it('are copied a range of keys at a time and are no entry’s until it is recorded with them', async () => {
    const store = new HeldStore(db);
    const earlier = store.hold(entry('earlier.csv'), [
      { kind: 'factory', rows: [{ dc: '', sku: 'OLD', quantity: 1 }] },
    ]);
    stage(12_000);
    let pauses = 0;
    const aside = await keepRowsAside(
      db,
      'staged.rows',
      async () => {
        pauses++;
      },
      (d) => WalCheckpoints.start(d),
    );
    expect(pauses).toBeGreaterThanOrEqual(3);
    expect(aside.heldId).toBe(earlier + 1);
    // Kept, but no entry's yet: the key is held by the earlier entry only if it named it.
    expect(heldRows()).toBe(1 + 12_001);
    expect(store.heldIdForKey('factory', '', 'S000005')).toBeUndefined();
    const id = store.hold(entry('big.csv'), aside);
    expect(id).toBe(aside.heldId);
    expect(store.heldIdForKey('factory', '', 'S000005')).toBe(id);
    const rows = rowsOf(id);
    expect(rows).toHaveLength(12_001);
    expect(rows[0]).toEqual({ kind: 'dc', dc: 'DC1', sku: 'S000000', quantity: 3 });
    expect(rows.at(-1)).toEqual({ kind: 'factory', dc: '', sku: 'S011999', quantity: 11_999 % 7 });
    expect(rowsOf(earlier)).toHaveLength(1);
  });

  it('drops rows a crash left without their entry before it keeps the next set’s', async () => {
    const store = new HeldStore(db);
    stage(7000);
    const lost = await keepRowsAside(
      db,
      'staged.rows',
      async () => undefined,
      (d) => WalCheckpoints.start(d),
    );
    // The process dies here: the entry is never recorded. The next set, another day:
    stage(3000, 50_000);
    const aside = await keepRowsAside(
      db,
      'staged.rows',
      async () => undefined,
      (d) => WalCheckpoints.start(d),
    );
    expect(aside.heldId).toBe(lost.heldId);
    expect(heldRows()).toBe(3001);
    const id = store.hold(entry('next.csv'), aside);
    expect(rowsOf(id).map((r) => r.sku)).not.toContain('S000100');
    expect(rowsOf(id)).toHaveLength(3001);
  });
});
