/**
 * The scratch database of a staged set (src/state/staging.ts), written in the reading thread and,
 * past `workerAfterRows`, by a real worker thread: the same rows, duplicates and rejections either
 * way, the reader held back while the worker is behind, the worker's errors surfaced, and a
 * discarded set leaving no file behind. Real SQLite files in a temporary folder.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { StockKind } from '../../src/domain/stock.ts';
import { StagingFile } from '../../src/state/staging.ts';

const dir = mkdtempSync(join(tmpdir(), 'staging-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROWS = 30_000;

/** Factory and DC rows in file order, every 7th repeating an earlier key, and some rejections. */
async function stage(file: StagingFile): Promise<void> {
  for (let i = 0; i < ROWS; i++) {
    const n = i % 7 === 6 ? i - 5 : i;
    const kind: StockKind = n % 2 === 0 ? 'factory' : 'dc';
    file.put(kind, kind === 'dc' ? `DC-${n % 3}` : '', `SKU-${n}`, i, i + 2);
    if (i % 1000 === 999) file.reject({ line: i + 2, field: 'sku', reason: 'empty', value: '' });
    if (i % 4096 === 0) {
      file.flush();
      await file.ready();
    }
  }
  await file.finish();
}

function contents(file: StagingFile) {
  const duplicates = file.duplicates(5, 3);
  const counts = file.duplicateCounts();
  const rejected = [...file.rejections(7)];
  const keys = file.count();
  file.close();
  const db = new Database(file.path, { readonly: true });
  const rows = db.prepare('SELECT * FROM rows ORDER BY kind, dc, sku').all();
  db.close();
  return { duplicates, counts, rejected, keys, rows };
}

describe('staging a set', () => {
  it('stages the same rows, duplicates and rejections in a worker thread as in the reading thread', async () => {
    const here = StagingFile.create(dir, { workerAfterRows: Number.POSITIVE_INFINITY });
    const worker = StagingFile.create(dir, { workerAfterRows: 5000 });
    await stage(here);
    await stage(worker);
    const a = contents(here);
    const b = contents(worker);
    expect(b).toEqual(a);
    expect(a.keys).toBeGreaterThan(20_000);
    expect(a.duplicates.rows).toBe(Math.floor(ROWS / 7));
    expect(a.rejected).toHaveLength(ROWS / 1000);
    expect(a.rejected[0]).toEqual({ line: 1001, field: 'sku', reason: 'empty', value: '' });
    here.discard();
    worker.discard();
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
    expect(failed).toMatchObject({ code: 'SQLITE_CONSTRAINT_NOTNULL' });
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
