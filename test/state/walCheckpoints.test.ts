/**
 * state.db's WAL checkpointed by a thread of its own while a large merge commits
 * (src/inventory/apply/walCheckpoints.ts): the connection's own commits take none meanwhile, the
 * thread's keep the WAL about the size asked for, everything is copied by the end, and a thread
 * that cannot work gives the checkpoints back to the commits. Real SQLite files, a real worker
 * thread.
 */
import { renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { WalCheckpoints } from '../../src/inventory/apply/walCheckpoints.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { memoryTempDir } from '../helpers/sandbox.ts';

const dir = memoryTempDir('wal-checkpoints-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A state.db with a table whose rows take a page each. */
function stateDb(name: string): { db: StateDb; path: string; write: (pages: number) => void } {
  const path = join(dir, name);
  const db = openStateDb(path);
  db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, blob BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO filler (blob) VALUES (randomblob(3000))');
  const write = db.transaction((pages: number) => {
    for (let i = 0; i < pages; i++) insert.run();
  });
  return { db, path, write };
}

/** Frames the WAL file has room for (it keeps the size it reached). */
const walFrames = (path: string) => Math.floor(statSync(`${path}-wal`).size / (4096 + 24));

/** Frames in the WAL as another connection sees them (its own passive checkpoint). */
function framesNow(path: string): number {
  const other = new Database(path);
  try {
    return (other.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log;
  } finally {
    other.close();
  }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('checkpoints in a thread of their own', () => {
  it('takes them off the commits, keeps the WAL about the size asked for and copies everything by the end', async () => {
    const { db, path, write } = stateDb('bounded.db');
    const before = db.pragma('wal_autocheckpoint', { simple: true });
    const checkpoints = WalCheckpoints.start(db, { pages: 200 })!;
    expect(await checkpoints.started).toBe(true);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    // 300 transactions of 20 pages, as a merge commits its chunks: with no checkpoint at all the
    // WAL would hold all 6,000 pages.
    let largest = 0;
    for (let chunk = 0; chunk < 300; chunk++) {
      write(20);
      largest = Math.max(largest, walFrames(path));
      await checkpoints.afterChunk();
      await tick();
    }
    await checkpoints.finish();
    expect(checkpoints.failure).toBeUndefined();
    // A checkpoint every 8 chunks at first, then every 10 (200 pages at 20 a chunk), each
    // copying every frame, so that the WAL starts over.
    expect(largest).toBeGreaterThanOrEqual(150);
    expect(largest).toBeLessThan(400);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(before);
    // Every frame was copied: the next commit starts the WAL over.
    write(1);
    expect(framesNow(path)).toBeLessThan(10);
    expect(db.prepare('SELECT COUNT(*) FROM filler').pluck().get()).toBe(6001);
    db.close();
  });

  it('gives the checkpoints back to the commits when the thread cannot open state.db', async () => {
    const { db, path, write } = stateDb('moved.db');
    // The connection keeps its open file; the thread finds no file by that name.
    renameSync(path, join(dir, 'moved-away.db'));
    const checkpoints = WalCheckpoints.start(db)!;
    expect(await checkpoints.started).toBe(false);
    expect(checkpoints.failure?.message).toMatch(/unable to open/);
    write(5);
    await checkpoints.afterChunk();
    await checkpoints.finish();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    write(5);
    db.close();
  });

  it('is not started for a database in memory', () => {
    const db = openStateDb(':memory:');
    expect(WalCheckpoints.start(db)).toBeUndefined();
    db.close();
  });
});
