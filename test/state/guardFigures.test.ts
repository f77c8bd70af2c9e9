import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import {
  compareRows,
  compareStaged,
  compareStagedInSteps,
  offeredSet,
} from '../../src/state/stock/guardFigures.ts';
import { setStockRules } from '../../src/state/stock/ruleOffers.ts';

let db: StateDb;
beforeEach(() => {
  db = openStateDb(':memory:');
  const remote = db.prepare(
    'INSERT INTO remote_stock (kind, dc, sku, quantity, seen_at) VALUES (?, ?, ?, ?, 0)',
  );
  for (let i = 0; i < 30; i++) remote.run('factory', '', `F${i}`, 10 + i);
  remote.run('factory', '', 'EMPTY', 0);
  remote.run('dc', 'DC1', 'F0', 50);
  // A staged set as the pipeline stages it: (kind, dc, sku, quantity, line).
  db.exec(
    'CREATE TEMP TABLE staged_rows (kind TEXT, dc TEXT, sku TEXT, quantity INTEGER, line INTEGER)',
  );
});
afterEach(() => db.close());

const stage = (rows: Array<[string, string, string, number]>) => {
  const insert = db.prepare('INSERT INTO temp.staged_rows VALUES (?, ?, ?, ?, 0)');
  for (const r of rows) insert.run(...r);
};

describe('the guard rails figures (one query over a staged set and remote_stock)', () => {
  it('counts named, unknown, in-stock and zeroed keys, and the sums over the known keys only', () => {
    stage([
      ...Array.from(
        { length: 25 },
        (_, i) => ['factory', '', `F${i}`, 0] as [string, string, string, number],
      ),
      ['factory', '', 'F25', 100],
      ['factory', '', 'EMPTY', 0],
      ['factory', '', 'NEW', 500],
      ['dc', 'DC1', 'F0', 5],
      ['dc', 'DC2', 'F0', 0],
    ]);
    const f = compareStaged(db, { table: 'temp.staged_rows' });
    expect(f).toMatchObject({
      keysNamed: 30,
      keysUnknown: 2,
      keysInStock: 27,
      keysZeroed: 25,
      // F0..F24 at 10..34, F25 at 35, EMPTY at 0, dc F0 at 50.
      sumBefore: 550 + 35 + 50,
      sumAfter: 100 + 5,
    });
    expect(f.examples).toHaveLength(20);
    // Zeroed keys first, the largest drop first.
    expect(f.examples[0]).toEqual({ kind: 'factory', dc: '', sku: 'F24', portal: 34, quantity: 0 });
    expect(f.examples.every((e) => e.quantity === 0)).toBe(true);
  });

  it('takes a table without a kind column for one kind, and an offered-quantity expression', () => {
    db.exec('CREATE TEMP TABLE one_kind (dc TEXT, sku TEXT, quantity INTEGER)');
    const insert = db.prepare("INSERT INTO temp.one_kind VALUES ('', ?, ?)");
    for (let i = 0; i < 10; i++) insert.run(`F${i}`, 3);
    expect(compareStaged(db, { table: 'temp.one_kind', kind: 'factory' })).toMatchObject({
      keysNamed: 10,
      keysZeroed: 0,
      sumAfter: 30,
    });
    // A buffer of 5 units held back: 3 offered as 0.
    const offered = compareStaged(db, {
      table: 'temp.one_kind',
      kind: 'factory',
      quantity: 'max(0, s.quantity - 5)',
    });
    expect(offered).toMatchObject({ keysZeroed: 10, sumAfter: 0 });
    expect(offered.examples[0]).toMatchObject({ quantity: 0 });
  });

  it('refuses what is not a table name', () => {
    expect(() => compareStaged(db, { table: 'rows; DROP TABLE kv' })).toThrow(/not a table name/);
  });

  it('compares rows held in memory the same way (plan, the snapshot before the pipeline stages)', () => {
    const f = compareRows(db, [
      {
        kind: 'factory',
        rows: [
          { dc: '', sku: 'F1', quantity: 0 },
          { dc: '', sku: 'X', quantity: 0 },
        ],
      },
    ]);
    expect(f).toMatchObject({
      keysNamed: 2,
      keysUnknown: 1,
      keysInStock: 1,
      keysZeroed: 1,
      sumBefore: 11,
      sumAfter: 0,
    });
  });

  it('works a staged set out a range of keys at a time to the same figures and examples, with and without stock rules', async () => {
    // Both kinds, three centres, keys known and unknown, quantities that rise, fall and zero.
    const remote = db.prepare(
      'INSERT OR REPLACE INTO remote_stock (kind, dc, sku, quantity, seen_at) VALUES (?, ?, ?, ?, 0)',
    );
    const rows: Array<[string, string, string, number]> = [];
    for (let i = 0; i < 90; i++) {
      const kind = i % 3 === 0 ? 'factory' : 'dc';
      const dc = kind === 'factory' ? '' : `DC${i % 4}`;
      const sku = `K${String(i).padStart(3, '0')}`;
      if (i % 5 !== 0) remote.run(kind, dc, sku, 10 + (i % 7));
      rows.push([kind, dc, sku, i % 4 === 0 ? 0 : i % 11]);
    }
    stage(rows);
    db.exec('CREATE INDEX temp.staged_key ON staged_rows (kind, dc, sku)');
    const whole = () => compareStaged(db, offeredSet(db, { table: 'temp.staged_rows' }));
    let pauses = 0;
    const pause = async () => {
      pauses++;
    };
    const inSteps = () => compareStagedInSteps(db, 'temp.staged_rows', pause, 7);
    const plain = whole();
    expect(plain.keysNamed).toBe(90);
    expect(plain.examples).toHaveLength(20);
    expect(await inSteps()).toEqual(plain);
    // 7 keys a step (a step never spans two centres): at least 90 / 7.
    expect(pauses).toBeGreaterThanOrEqual(13);
    setStockRules(db, [
      { sku: 'K01*', exclude: true },
      { sku: 'K*', buffer: 2 },
    ]);
    const ruled = whole();
    expect(ruled.keysNamed).toBeLessThan(90);
    expect(ruled).not.toEqual(plain);
    expect(await inSteps()).toEqual(ruled);
  });
});
