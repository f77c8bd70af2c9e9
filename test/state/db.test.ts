import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkpointWal,
  flushWal,
  openStateDb,
  schemaVersion,
  WAL_SIZE_LIMIT_BYTES,
  withoutFlush,
} from '../../src/state/db.ts';
import { migrations } from '../../src/state/migrations/index.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

let box: Sandbox;
afterEach(async () => {
  await box.cleanup();
});

describe('state.db', () => {
  it('is created readable by its owner only, in WAL mode, with every migration applied once', () => {
    box = makeSandbox('statedb');
    const path = join(box.dataDir, 'sub', 'state.db');
    const db = openStateDb(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(schemaVersion(db)).toBe(migrations.at(-1)!.version);
    db.close();
    // Opening again (a restart, a second process) applies nothing twice.
    const again = openStateDb(path);
    expect(schemaVersion(again)).toBe(migrations.at(-1)!.version);
    again.close();
  });

  it('commits without a flush inside withoutFlush only, FULL again after it (even when it throws); flushWal flushes a log that exists', async () => {
    box = makeSandbox('statedb-flush');
    const path = join(box.dataDir, 'state.db');
    const db = openStateDb(path);
    try {
      const level = () => db.pragma('synchronous', { simple: true });
      expect(level()).toBe(2);
      db.exec('CREATE TABLE t (x INTEGER)');
      expect(
        withoutFlush(db, () => [level(), db.prepare('INSERT INTO t VALUES (1)').run().changes]),
      ).toEqual([1, 1]);
      expect(level()).toBe(2);
      expect(() =>
        withoutFlush(db, () => {
          throw new Error('in the middle');
        }),
      ).toThrow('in the middle');
      expect(level()).toBe(2);
      await flushWal(db);
      // What was committed without a flush is there for the next connection.
      const other = openStateDb(path);
      expect(other.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 1 });
      other.close();
    } finally {
      db.close();
    }
    // No log left once the last connection closed, and an in-memory database: nothing to flush.
    const again = openStateDb(path);
    again.close();
    await flushWal(again).catch((e: unknown) => {
      throw e;
    });
    await flushWal(openStateDb(':memory:'));
  });

  it('keeps its write-ahead log bounded: grown while a reader held it, cut back once checkpointed', () => {
    box = makeSandbox('statedb-wal');
    const path = join(box.dataDir, 'state.db');
    const db = openStateDb(path);
    const reader = openStateDb(path);
    try {
      db.exec('CREATE TABLE filler (x BLOB)');
      const insert = db.prepare('INSERT INTO filler (x) VALUES (?)');
      // A reader in the middle of a long read: no checkpoint can start the log again meanwhile.
      reader.exec('BEGIN');
      reader.prepare('SELECT COUNT(*) FROM kv').get();
      for (let i = 0; i < 48; i++) insert.run(Buffer.alloc(512 * 1024, i));
      const grown = statSync(`${path}-wal`).size;
      expect(grown).toBeGreaterThan(3 * WAL_SIZE_LIMIT_BYTES);
      reader.exec('COMMIT');
      // The daemon's checkpoint (every minute), then its next write: the log starts again from
      // the top and the file is cut back to the bound.
      const { log, copied } = checkpointWal(db);
      expect(copied).toBe(log);
      db.prepare('DELETE FROM filler').run();
      expect(statSync(`${path}-wal`).size).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES);
    } finally {
      reader.close();
      db.close();
    }
  });
});
