import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { type Migration, migrations } from './migrations/index.ts';

export type StateDb = Database.Database;

/**
 * `make(db)` once per connection, kept with it: for a module's prepared statements (a statement
 * belongs to the connection that prepared it).
 */
export function perConnection<S>(make: (db: StateDb) => S): (db: StateDb) => S {
  const cache = new WeakMap<StateDb, S>();
  return (db) => {
    let s = cache.get(db);
    if (s === undefined) {
      s = make(db);
      cache.set(db, s);
    }
    return s;
  };
}

export interface OpenOptions {
  /** Milliseconds a writer waits for another process's lock before SQLITE_BUSY. */
  readonly busyTimeoutMs?: number;
  /** Migrations to apply; the project's own list unless a test says otherwise. */
  readonly migrations?: readonly Migration[];
}

/**
 * The size state.db's write-ahead log is cut back to once it starts again from the top (SQLite's
 * `journal_size_limit`): the log grows while a reader holds its start back (a long `status`, a
 * command's read of a large table) and by the largest transaction; without the limit the file
 * keeps the largest size it ever had. SQLite checkpoints it every 1,000 pages (about 4 MiB), and
 * the daemon every minute (checkpointWal).
 */
export const WAL_SIZE_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * Opens (creating if needed) the state database: WAL so readers never block the writer,
 * synchronous = FULL so a commit survives a power loss, a busy timeout so several processes on
 * one data dir queue instead of failing, the log kept bounded (WAL_SIZE_LIMIT_BYTES), and every
 * pending migration applied in its own transaction.
 */
export function openStateDb(path: string, options: OpenOptions = {}): StateDb {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // It holds the portal token: readable by the owner only (SQLite gives -wal/-shm the same mode).
  if (path !== ':memory:') chmodSync(path, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
  // FULL: each commit is on disk (the WAL flushed) before the call returns. With NORMAL a power
  // loss may take back the last commits while a rename that followed them (into processed/,
  // into outbox/) survived: rows gone with the file marked done, or an order handed over twice.
  // Its cost is measured in docs/benchmarks.md (bench/ingest).
  db.pragma('synchronous = FULL');
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  db.pragma('foreign_keys = ON');
  applyMigrations(db, options.migrations ?? migrations);
  return db;
}

/**
 * Opens an existing state.db read-only for a dry run, without migrating or creating anything;
 * undefined when there is none, or when it is not a state database of this project.
 */
export function openStateDbReadOnly(path: string): StateDb | undefined {
  if (!existsSync(path)) return undefined;
  let db: StateDb | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    db.prepare('SELECT 1 FROM remote_stock LIMIT 1').get();
    db.prepare('SELECT 1 FROM distribution_centres LIMIT 1').get();
    db.prepare('SELECT 1 FROM kv LIMIT 1').get();
    return db;
  } catch {
    db?.close();
    return undefined;
  }
}

/**
 * Copies what the write-ahead log holds into state.db as far as no reader needs it (PASSIVE:
 * never waits for a reader or a writer). Once all of it is copied, the next write starts the log
 * again from the top and cuts the file to WAL_SIZE_LIMIT_BYTES. Returns the log's pages and those
 * copied.
 */
export function checkpointWal(db: StateDb): { readonly log: number; readonly copied: number } {
  const [r] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{
    busy: number;
    log: number;
    checkpointed: number;
  }>;
  return { log: r?.log ?? 0, copied: r?.checkpointed ?? 0 };
}

const SYNCHRONOUS_NORMAL = 1;

/**
 * Runs `commits` (synchronous: nothing else may commit on this connection meanwhile) with
 * `synchronous = NORMAL`: each commit is written to the WAL without waiting for the disk to have
 * it, and stays consistent — a power cut takes back, at the worst, the last of them whole. For a
 * long series of commits that is resumed from its own cursor anyway (a merge's chunks, rows kept
 * aside): on the event loop, a flush waits behind whatever the device is busy with (a checkpoint
 * thread's pages), for up to a second on a slow disk. What must be durable before an act that
 * cannot be taken back (a file moved out of inbox/) is made so by `flushWal`, or by the next
 * commit of the connection's own FULL, which flushes the WAL and every frame before its own.
 */
export function withoutFlush<T>(db: StateDb, commits: () => T): T {
  const level = db.pragma('synchronous', { simple: true }) as number;
  db.pragma(`synchronous = ${SYNCHRONOUS_NORMAL}`);
  try {
    return commits();
  } finally {
    db.pragma(`synchronous = ${level}`);
  }
}

/**
 * Makes every commit so far durable without holding the event loop: the WAL's file flushed on
 * libuv's thread pool (an `fsync`, as SQLite's own, reaches every write to the file, whichever
 * descriptor made it). Frames a checkpoint already copied are durable already: a checkpoint flushes the WAL
 * before it copies and the database file after.
 */
export async function flushWal(db: StateDb): Promise<void> {
  if (db.memory) return;
  let wal: Awaited<ReturnType<typeof open>>;
  try {
    wal = await open(`${db.name}-wal`, 'r');
  } catch (e) {
    // No log (never written, or removed by the last connection's close): nothing to flush.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  try {
    await wal.sync();
  } finally {
    await wal.close();
  }
}

export function schemaVersion(db: StateDb): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function applyMigrations(db: StateDb, list: readonly Migration[]): void {
  const apply = db.transaction((m: Migration) => {
    // Re-checked inside the write transaction: another process may have migrated meanwhile.
    if (schemaVersion(db) >= m.version) return;
    db.exec(m.sql);
    db.pragma(`user_version = ${m.version}`);
  });
  for (const m of list) {
    if (schemaVersion(db) < m.version) apply.immediate(m);
  }
}
