/**
 * The scratch database of a staged set (src/inventory/staging/stagingFile.ts), written in the reading thread and,
 * past `workerAfterRows`, by a real worker thread: the same rows, duplicates and named keys either
 * way, the reader held back while the worker is behind, the worker's errors surfaced, and a
 * discarded set leaving no file behind. Real SQLite files in a temporary folder in memory.
 */
import { existsSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { StockKind } from '../../src/domain/stock.ts';
import { StagingFile } from '../../src/inventory/staging/stagingFile.ts';
import type { DuplicatesListed } from '../../src/state/staging/duplicateSummary.ts';
import { memoryTempDir } from '../helpers/sandbox.ts';

const dir = memoryTempDir('staging-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROWS = 30_000;

/** Factory and DC rows in file order, every 7th repeating an earlier key, and some keys named without a row. */
async function stage(file: StagingFile, listed?: DuplicatesListed): Promise<void> {
  for (let i = 0; i < ROWS; i++) {
    const n = i % 7 === 6 ? i - 5 : i;
    const kind: StockKind = n % 2 === 0 ? 'factory' : 'dc';
    file.put(kind, kind === 'dc' ? `DC-${n % 3}` : '', `SKU-${n}`, i, i + 2);
    if (i % 1000 === 999) file.nameKey('dc', 'DC-9', `NAMED-${i}`);
    if (i % 4096 === 0) {
      file.flush();
      await file.ready();
    }
  }
  await file.finish(listed);
}

function contents(file: StagingFile) {
  const duplicates = file.duplicates(5, 3);
  const counts = file.duplicateCounts();
  const keys = file.count();
  file.close();
  const db = new Database(file.path, { readonly: true });
  const rows = db.prepare('SELECT * FROM rows ORDER BY kind, dc, sku').all();
  const named = db.prepare('SELECT * FROM named ORDER BY kind, dc, sku').all();
  db.close();
  return { duplicates, counts, named, keys, rows };
}

describe('staging a set', () => {
  it('stages the same rows, duplicates and named keys in a worker thread as in the reading thread', async () => {
    const here = StagingFile.create(dir, { workerAfterRows: Number.POSITIVE_INFINITY });
    const worker = StagingFile.create(dir, { workerAfterRows: 5000 });
    await stage(here);
    // The worker thread sums the replaced rows up as it finishes, as the report lists them.
    await stage(worker, { keys: 5, lines: 3 });
    const a = contents(here);
    const b = contents(worker);
    expect(b).toEqual(a);
    expect(a.keys).toBeGreaterThan(20_000);
    expect(a.duplicates.rows).toBe(Math.floor(ROWS / 7));
    expect(a.named).toHaveLength(ROWS / 1000);
    expect(a.named[0]).toEqual({ kind: 'dc', dc: 'DC-9', sku: 'NAMED-10999' });
    here.discard();
    worker.discard();
  });

  it('names a key once however many rows one after another name it, each kind and centre its own', async () => {
    const file = StagingFile.create(dir, { workerAfterRows: Number.POSITIVE_INFINITY });
    const name = (kind: StockKind, dc: string, sku: string, times = 1) => {
      for (let i = 0; i < times; i++) file.nameKey(kind, dc, sku);
    };
    name('factory', '', 'A', 50_000); // rejected rows of one key, more than a batch
    file.flush();
    name('factory', '', 'A');
    name('dc', 'DC-1', 'A', 3);
    name('dc', 'DC-2', 'A');
    name('factory', '', 'B');
    name('factory', '', 'A');
    await file.finish();
    expect(contents(file).named).toEqual([
      { kind: 'dc', dc: 'DC-1', sku: 'A' },
      { kind: 'dc', dc: 'DC-2', sku: 'A' },
      { kind: 'factory', dc: '', sku: 'A' },
      { kind: 'factory', dc: '', sku: 'B' },
    ]);
    file.discard();
  });

  it('holds the reader back while the worker thread is more than a few batches behind', async () => {
    const file = StagingFile.create(dir, { workerAfterRows: 10 });
    // Ten batches handed over at once, before the new thread can have written them.
    for (let i = 0; i < 10 * 4096; i++) file.put('factory', '', `S${i}`, i, i + 2);
    const wait = file.ready();
    expect(wait).toBeInstanceOf(Promise);
    await wait;
    expect(file.ready()).toBeUndefined();
    await file.finish();
    expect(file.count()).toBe(10 * 4096);
    file.discard();
  });

  it('surfaces an error of the worker thread with its SQLite code, and loses no file on discard', async () => {
    const file = StagingFile.create(dir, { workerAfterRows: 10 });
    for (let i = 0; i < 20; i++) file.put('factory', '', `S${i}`, i, i + 2);
    file.flush();
    // A row SQLite refuses (NOT NULL), written by the worker.
    file.put('factory', '', null as unknown as string, 1, 99);
    const failed = await file.finish().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).toMatchObject({
      code: 'E_STAGING',
      cause: { code: 'SQLITE_CONSTRAINT_NOTNULL' },
    });
    expect(() => file.put('factory', '', 'S1', 1, 100)).not.toThrow();
    expect(() => file.flush()).toThrow(/NOT NULL/);
    file.discard();
    expect(existsSync(file.path)).toBe(false);
  });

  it('discards a set a worker thread is still writing', async () => {
    const file = StagingFile.create(dir, { workerAfterRows: 10 });
    for (let i = 0; i < 50_000; i++) file.put('factory', '', `S${i}`, i, i + 2);
    file.flush();
    file.discard();
    expect(existsSync(file.path)).toBe(false);
  });
});

describe('staging rows in any order', () => {
  it('keeps the last line of each key and logs every replaced row, sorted or shuffled, here or in a worker thread', async () => {
    const row = fc.record({
      kind: fc.constantFrom<StockKind>('factory', 'dc'),
      dc: fc.constantFrom('DC-1', 'DC-2'),
      sku: fc.constantFrom(...Array.from({ length: 5 }, (_, i) => `S${i}`)),
      quantity: fc.nat(9),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 60 }),
        fc.boolean(),
        fc.array(fc.nat(60), { maxLength: 12 }),
        fc.constantFrom(Number.POSITIVE_INFINITY, 1, 7),
        async (rows, sortFirst, flushes, workerAfterRows) => {
          const input = sortFirst ? [...rows].sort((a, b) => (a.sku < b.sku ? -1 : 1)) : rows;
          const file = StagingFile.create(dir, { workerAfterRows });
          const model = new Map<string, { quantity: number; lines: number[] }>();
          input.forEach((r, i) => {
            const dc = r.kind === 'dc' ? r.dc : '';
            const line = i + 2;
            file.put(r.kind, dc, r.sku, r.quantity, line);
            const key = `${r.kind}:${dc}:${r.sku}`;
            const m = model.get(key);
            model.set(key, { quantity: r.quantity, lines: [...(m?.lines ?? []), line] });
            if (flushes.includes(i)) file.flush();
          });
          await file.finish();
          const dups = file.duplicates(1000, 1000);
          file.close();
          const db = new Database(file.path, { readonly: true });
          const staged = db
            .prepare<[], { kind: string; dc: string; sku: string; quantity: number; line: number }>(
              'SELECT kind, dc, sku, quantity, line FROM rows',
            )
            .all();
          const raw = db.prepare('SELECT COUNT(*) FROM raw').pluck(true).get();
          db.close();
          file.discard();
          expect(raw).toBe(0);
          expect(
            new Map(staged.map((s) => [`${s.kind}:${s.dc}:${s.sku}`, [s.quantity, s.line]])),
          ).toEqual(new Map([...model].map(([k, m]) => [k, [m.quantity, m.lines.at(-1)]])));
          const repeated = [...model].filter(([, m]) => m.lines.length > 1);
          expect(dups.rows).toBe(repeated.reduce((n, [, m]) => n + m.lines.length - 1, 0));
          // Keys by first repeat in the file, each with every line in order.
          const byFirstRepeat = repeated.sort((a, b) => a[1].lines[1]! - b[1].lines[1]!);
          expect(dups.keys.map((k) => [`${k.kind}:${k.dc}:${k.sku}`, k.lines])).toEqual(
            byFirstRepeat.map(([k, m]) => [k, m.lines]),
          );
        },
      ),
      { numRuns: 120 },
    );
  });

  it('keeps sending rows to the side once one came out of order, across batches', async () => {
    const file = StagingFile.create(dir, { workerAfterRows: Number.POSITIVE_INFINITY });
    file.put('factory', '', 'c-a', 0, 2);
    file.put('factory', '', 'c-', 0, 3);
    file.flush();
    file.put('factory', '', 'c-', 1, 4);
    await file.finish();
    expect(file.duplicates(10, 10).keys).toEqual([
      { kind: 'factory', dc: '', sku: 'c-', lines: [3, 4] },
    ]);
    file.close();
    const db = new Database(file.path, { readonly: true });
    expect(db.prepare("SELECT quantity, line FROM rows WHERE sku = 'c-'").get()).toEqual({
      quantity: 1,
      line: 4,
    });
    db.close();
    file.discard();
  });
});
