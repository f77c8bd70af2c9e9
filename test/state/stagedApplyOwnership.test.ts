/**
 * Two writers on one staged apply (issue #28): an apply's id is never given again once its row is
 * gone, and a chunk is merged only from the scratch file its apply recorded. Real SQLite files.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { StagingFile } from '../../src/inventory/staging/stagingFile.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import {
  attachStaged,
  detachStaged,
  mergeStagedChunk,
  recordStagedApply,
} from '../../src/state/staging/stagedApplyTable.ts';
import { memoryTempDir } from '../helpers/sandbox.ts';

const dir = memoryTempDir('staged-owner-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let db: StateDb;
let n = 0;
afterEach(() => db?.close());

async function staged(skus: string[]): Promise<StagingFile> {
  const s = StagingFile.create(dir, { workerAfterRows: Number.POSITIVE_INFINITY });
  for (const [i, sku] of skus.entries()) s.put('factory', '', sku, 5, i + 2);
  await s.finish();
  s.close();
  return s;
}

const record = (file: StagingFile, source: string) =>
  db
    .transaction(() =>
      recordStagedApply(db, {
        stagedFile: file.name,
        source,
        fileId: null,
        sourceAt: 1,
        appliedAt: 2,
      }),
    )
    .immediate();

const desired = () =>
  db.prepare('SELECT sku, source FROM desired_stock ORDER BY sku').all() as Array<{
    sku: string;
    source: string;
  }>;

describe('staged applies', () => {
  it('never give an id twice, even once the apply before is finished and its row gone', async () => {
    db = openStateDb(join(dir, `state-${n++}.db`));
    const a = await staged(['A1', 'A2']);
    const first = record(a, 'file:1');
    attachStaged(db, a.path);
    while (!mergeStagedChunk(db, first, 10).done);
    detachStaged(db);
    expect(db.prepare('SELECT COUNT(*) FROM staged_applies').pluck(true).get()).toBe(0);

    const b = await staged(['B1']);
    const second = record(b, 'file:2');
    expect(second).toBeGreaterThan(first);
  });

  it('refuse to merge a chunk from a scratch file that is not the apply’s own: nothing merged, the apply left whole', async () => {
    db = openStateDb(join(dir, `state-${n++}.db`));
    const a = await staged(['A1', 'A2', 'A3']);
    const b = await staged(['B1', 'B2']);
    const applyA = record(a, 'file:1');
    const applyB = record(b, 'file:2');

    // B's set attached, A's apply asked for: refused, naming both files.
    attachStaged(db, b.path);
    expect(() => mergeStagedChunk(db, applyA, 10)).toThrow(
      `staged apply ${applyA} belongs to the scratch file ${a.name}, but ${b.name} is attached`,
    );
    expect(desired()).toEqual([]);
    // B's own apply merges from it.
    while (!mergeStagedChunk(db, applyB, 1).done);
    detachStaged(db);
    expect(desired()).toEqual([
      { sku: 'B1', source: 'file:2' },
      { sku: 'B2', source: 'file:2' },
    ]);
    // Nothing attached at all: refused too.
    expect(() => mergeStagedChunk(db, applyA, 10)).toThrow(/none is attached/);
    attachStaged(db, a.path);
    while (!mergeStagedChunk(db, applyA, 2).done);
    detachStaged(db);
    expect(
      desired()
        .filter((r) => r.source === 'file:1')
        .map((r) => r.sku),
    ).toEqual(['A1', 'A2', 'A3']);
  });
});
