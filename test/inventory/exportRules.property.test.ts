import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { profilesFileSchema } from '../../src/config/profiles.ts';
import { StockRows } from '../../src/inventory/ingest/stockRows.ts';
import { StagingFile } from '../../src/inventory/staging/stagingFile.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { RemoteStock } from '../../src/state/stock/remoteStock.ts';
import { makeIngestEnv } from './helpers.ts';

/**
 * Properties of the profile fields that change what a file means:
 * - `duplicates: "sum"` is order-independent: however a file's lot rows are ordered, each key
 *   ends with the sum of its rows' quantities (in memory for plan, and staged on disk, where a
 *   worker thread may write them and out-of-order rows take another path);
 * - a full export never lowers a key a row names below what that row says: an accepted row sets
 *   its quantity, a row rejected for its quantity or kept by the profile leaves the key as the
 *   portal holds it; only keys no row names are zeroed.
 */

const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-export-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lotRows = fc.array(
  fc.record({
    dc: fc.constantFrom('', 'DC1', 'DC2'),
    sku: fc.constantFrom('A', 'B', 'C', 'D', 'E'),
    quantity: fc.integer({ min: 0, max: 1000 }),
  }),
  { minLength: 1, maxLength: 60 },
);

function sums(rows: ReadonlyArray<{ dc: string; sku: string; quantity: number }>) {
  const out = new Map<string, number>();
  for (const r of rows)
    out.set(`${r.dc}|${r.sku}`, (out.get(`${r.dc}|${r.sku}`) ?? 0) + r.quantity);
  return out;
}

async function stagedSums(
  rows: ReadonlyArray<{ dc: string; sku: string; quantity: number }>,
  workerAfterRows: number,
) {
  const staged = StagingFile.create(dir, { sum: true, workerAfterRows });
  try {
    for (const [i, r] of rows.entries()) {
      staged.put(r.dc === '' ? 'factory' : 'dc', r.dc, r.sku, r.quantity, i + 1);
    }
    await staged.finish();
    staged.close();
    const db = new Database(staged.path, { readonly: true });
    try {
      const out = new Map<string, number>();
      for (const r of db.prepare('SELECT dc, sku, quantity FROM rows').all() as Array<{
        dc: string;
        sku: string;
        quantity: number;
      }>)
        out.set(`${r.dc}|${r.sku}`, r.quantity);
      return out;
    } finally {
      db.close();
    }
  } finally {
    staged.discard();
  }
}

describe('duplicates: "sum"', () => {
  it('adds rows of a key up, in any order (in memory)', () => {
    fc.assert(
      fc.property(lotRows, fc.integer(), (rows, seed) => {
        const shuffled = fc.sample(fc.shuffledSubarray(rows, { minLength: rows.length }), {
          seed,
          numRuns: 1,
        })[0]!;
        const add = (list: typeof rows) => {
          const s = new StockRows();
          for (const [i, r] of list.entries()) s.add(r.dc, r.sku, r.quantity, i + 1);
          return new Map([...s.values()].map((e) => [`${e.dc}|${e.sku}`, e.quantity]));
        };
        expect(add(shuffled)).toEqual(sums(rows));
        expect(add(rows)).toEqual(sums(rows));
      }),
      { numRuns: 200 },
    );
  });

  it('adds rows of a key up, in any order (staged, in this thread or a worker)', async () => {
    await fc.assert(
      fc.asyncProperty(
        lotRows,
        fc.integer(),
        fc.constantFrom(Number.POSITIVE_INFINITY, 5),
        async (rows, seed, after) => {
          const shuffled = fc.sample(fc.shuffledSubarray(rows, { minLength: rows.length }), {
            seed,
            numRuns: 1,
          })[0]!;
          expect(await stagedSums(shuffled, after)).toEqual(sums(rows));
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('a full export never lowers a key a row names', () => {
  const row = fc.record({
    sku: fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F'),
    kind: fc.constantFrom('good', 'typo', 'kept'),
    quantity: fc.integer({ min: 0, max: 50 }),
  });

  it('accepted rows set their key, rejected and kept rows leave it, unnamed keys go to 0', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 12 }),
        fc.dictionary(
          fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F', 'G'),
          fc.integer({ min: 1, max: 99 }),
        ),
        async (rows, portal) => {
          const env = makeIngestEnv('full-export-property');
          try {
            new RemoteStock(env.db).storeRead(
              Object.entries(portal).map(([sku, quantity]) => ({
                kind: 'factory',
                dc: '',
                sku,
                quantity,
                platformSku: null,
              })),
              1,
            );
            new KeyValueStore(env.db).set('remote.read_at.factory', 1);
            const text = rows
              .map(
                (r) =>
                  `${r.sku},${r.kind === 'good' ? r.quantity : r.kind === 'typo' ? `${r.quantity}x` : 'n/a'}`,
              )
              .join('\n');
            env.drop('full.csv', `sku,stock_quantity\n${text}\n`);
            const profiles = profilesFileSchema.parse({
              profiles: [{ match: 'full.csv', absent: 'zero', values: { 'n/a': 'keep' } }],
            }).profiles;
            await env.process('full.csv', { profiles: () => profiles });
            const desired = new Map(env.desired().map((d) => [d.sku, d.quantity]));
            const held = (sku: string) =>
              desired.get(sku) ?? (portal as Record<string, number>)[sku] ?? 0;
            // The last accepted row of a key wins (duplicates: last).
            const accepted = new Map<string, number>();
            for (const r of rows) if (r.kind === 'good') accepted.set(r.sku, r.quantity);
            const named = new Set(rows.map((r) => r.sku));
            // A file with no row to apply (every row rejected) goes to failed/: nothing changes.
            const applied = rows.some((r) => r.kind !== 'typo');
            for (const sku of ['A', 'B', 'C', 'D', 'E', 'F', 'G']) {
              if (!applied) {
                expect(held(sku), sku).toBe((portal as Record<string, number>)[sku] ?? 0);
                continue;
              }
              if (accepted.has(sku)) expect(held(sku), sku).toBe(accepted.get(sku));
              else if (named.has(sku as never))
                expect(held(sku), sku).toBe((portal as Record<string, number>)[sku] ?? 0);
              else expect(held(sku), sku).toBe(0);
            }
          } finally {
            await env.cleanup();
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
