/**
 * A full export's absent keys staged as zeroes (src/state/stock/absentStock.ts), a range of SKUs
 * of one centre at a time: whatever the size of the ranges, the keys added are exactly those held
 * above 0 (by the portal or by desired stock) that the set names neither by a row nor as a named
 * key — at the centres it names, for DC stock. A real state.db and a real scratch database
 * attached as `staged`, in a temporary folder in memory.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StockKind } from '../../src/domain/stock.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { attachStaged, detachStaged } from '../../src/state/staging/stagedApplyTable.ts';
import { openStagingDb } from '../../src/state/staging/stagingWriter.ts';
import { stageAbsentZeros } from '../../src/state/stock/absentStock.ts';
import { memoryTempDir } from '../helpers/sandbox.ts';

const dir = memoryTempDir('absent-stock-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Key = { kind: StockKind; dc: string; sku: string };
const sku = (i: number) => `S${String(i).padStart(3, '0')}`;

let db: StateDb;
let remote: Array<Key & { quantity: number }>;
let desired: Array<Key & { quantity: number }>;
let staged: Key[];
let named: Key[];
let n = 0;

beforeEach(() => {
  db = openStateDb(':memory:');
  remote = [];
  desired = [];
  staged = [];
  named = [];
  // Four centres and the factory; quantities 0, 1, 2 in turn; desired stock on every 4th key.
  for (let i = 0; i < 120; i++) {
    for (const [kind, dc] of [
      ['factory', ''],
      ['dc', 'DC1'],
      ['dc', 'DC2'],
      ['dc', 'DC3'],
      ['dc', 'DC4'],
    ] as Array<[StockKind, string]>) {
      if (i % 5 !== 4) remote.push({ kind, dc, sku: sku(i), quantity: i % 3 });
      if (i % 4 === 0) desired.push({ kind, dc, sku: sku(i + 1), quantity: i % 8 === 0 ? 3 : 0 });
      // The set names every 3rd SKU at the factory and DC1 by a row; DC2 only by named keys.
      if (i % 3 === 0 && (dc === '' || dc === 'DC1')) staged.push({ kind, dc, sku: sku(i) });
      if (i % 7 === 0 && dc === 'DC2') named.push({ kind, dc, sku: sku(i) });
    }
  }
  const r = db.prepare(
    'INSERT INTO remote_stock (kind, dc, sku, quantity, seen_at) VALUES (@kind, @dc, @sku, @quantity, 0)',
  );
  for (const k of remote) r.run(k);
  const d = db.prepare(
    "INSERT INTO desired_stock (kind, dc, sku, quantity, source, updated_at) VALUES (@kind, @dc, @sku, @quantity, 'file:1', 0)",
  );
  for (const k of desired) d.run(k);
  const path = join(dir, `set-${n++}.db`);
  const set = openStagingDb(path, true);
  const row = set.prepare(
    'INSERT INTO rows (kind, dc, sku, quantity, line) VALUES (@kind, @dc, @sku, 5, 2)',
  );
  for (const k of staged) row.run(k);
  const name = set.prepare('INSERT INTO named (kind, dc, sku) VALUES (@kind, @dc, @sku)');
  for (const k of named) name.run(k);
  set.close();
  attachStaged(db, path);
});
afterEach(() => {
  detachStaged(db);
  db.close();
});

/** What the step must add, worked out in JavaScript. */
function expected(kind: StockKind): string[] {
  const id = (k: Key) => `${k.kind}|${k.dc}|${k.sku}`;
  const setKeys = new Set([...staged, ...named].map(id));
  const centres = new Set([...staged, ...named].filter((k) => k.kind === kind).map((k) => k.dc));
  const held = [...remote, ...desired].filter(
    (k) => k.kind === kind && k.quantity > 0 && (kind === 'factory' || centres.has(k.dc)),
  );
  return [...new Set(held.filter((k) => !setKeys.has(id(k))).map(id))].sort();
}

function added(kind: StockKind): string[] {
  return (
    db
      .prepare(
        "SELECT kind || '|' || dc || '|' || sku AS k FROM staged.rows WHERE kind = ? AND line = 0 AND quantity = 0 ORDER BY 1",
      )
      .pluck()
      .all(kind) as string[]
  ).sort();
}

describe('a full export’s absent keys', () => {
  for (const keys of [1, 4, 13, 10_000]) {
    it(`are staged as zeroes the same in ranges of ${keys} key(s), the loop let in between`, async () => {
      let pauses = 0;
      const pause = async () => {
        pauses++;
      };
      const factory = await stageAbsentZeros(db, 'factory', pause, keys);
      const dc = await stageAbsentZeros(db, 'dc', pause, keys);
      expect(added('factory')).toEqual(expected('factory'));
      expect(added('dc')).toEqual(expected('dc'));
      expect(factory).toBe(expected('factory').length);
      expect(dc).toBe(expected('dc').length);
      // DC stock only at DC1 and DC2: the centres the set names (DC2 by named keys alone).
      expect(new Set(added('dc').map((k) => k.split('|')[1]))).toEqual(new Set(['DC1', 'DC2']));
      // One step a range: about 120 SKUs a centre over `keys` of each table (a range ends at
      // the first table's last SKU, so a centre takes one or two when they all fit).
      if (keys === 1) expect(pauses).toBeGreaterThan(300);
      if (keys === 10_000) expect(pauses).toBeLessThanOrEqual(6);
    });
  }
});
