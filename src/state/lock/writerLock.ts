import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { dataPaths } from '../../config/dataPaths.ts';
import type { StateDb } from '../db.ts';

/**
 * One writer per data dir: the daemon (or a command working alone while no daemon runs) holds
 * the data dir's writer lock for as long as it writes state.db's stock and held records.
 *
 * The lock is the operating system's: an EXCLUSIVE SQLite transaction kept open on
 * `<data dir>/writer.lock` (an empty file), which is a POSIX record lock on that file. The kernel
 * keeps it for the process, across PID namespaces (two containers on one volume share the host's
 * kernel and the file's inode), and drops it the moment the process ends however it ends
 * (SIGKILL, an OOM kill): a restart never waits for a lease to run out, and a live holder whose
 * event loop stalls (a long collection, a starved CPU) never loses it to a second writer — the
 * two ways a lease renewed on a timer fails. No process id is compared: who holds it is only
 * recorded (`writer_lock` in state.db) to be named in messages.
 * A network file system shared by two hosts keeps such locks only as far as its lock manager
 * does; state.db itself, SQLite in WAL mode, needs one host anyway.
 */

/** This process's random name: its writer lock's owner, the prefix of its scratch files. */
export const PROCESS_TOKEN = randomBytes(8).toString('hex');

export interface WriterHolder {
  /** The holding process's PROCESS_TOKEN (its scratch files' names start with it). */
  readonly owner: string;
  /** `daemon`, or the command working alone (`release`, `reject`, …). */
  readonly role: string;
  readonly host: string;
  /** In the holder's own PID namespace: for people, never compared. */
  readonly pid: number;
  /** Epoch ms. */
  readonly since: number;
}

export interface WriterLock {
  readonly holder: WriterHolder;
  /** Lets go (idempotent); the holder's record goes with it. */
  release(): void;
}

export type LockAttempt =
  | { readonly lock: WriterLock; readonly heldBy?: undefined }
  /** Someone else holds it; who, as recorded (undefined: not yet recorded, or by an old version). */
  | { readonly lock?: undefined; readonly heldBy: WriterHolder | undefined };

/** Locks held by this process, kept referenced: a connection collected as garbage lets go. */
const held = new Set<Database.Database>();

/** The OS lock on the lock file, or undefined when another connection holds it. */
function osLock(path: string): Database.Database | undefined {
  let file: Database.Database;
  try {
    file = new Database(path, { timeout: 0 });
  } catch (err) {
    throw new Error(
      `cannot open the data dir's writer lock ${path}: ${(err as Error).message} (the data dir must be writable by this user)`,
    );
  }
  try {
    file.pragma('journal_mode = OFF');
    file.exec('BEGIN EXCLUSIVE');
    return file;
  } catch (err) {
    file.close();
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return undefined;
    throw err;
  }
}

function recordedHolder(db: StateDb): WriterHolder | undefined {
  return db
    .prepare<[], WriterHolder>(
      'SELECT owner, role, host, pid, since FROM writer_lock WHERE one = 1',
    )
    .get();
}

/** Takes the writer lock at once, or says who holds it. */
export function takeWriterLock(
  dataDir: string,
  db: StateDb,
  role: string,
  now: number = Date.now(),
): LockAttempt {
  const file = osLock(dataPaths(dataDir).writerLock);
  if (file === undefined) return { heldBy: recordedHolder(db) };
  const holder: WriterHolder = {
    owner: PROCESS_TOKEN,
    role,
    host: hostname(),
    pid: process.pid,
    since: now,
  };
  try {
    db.prepare(
      `INSERT INTO writer_lock (one, owner, role, host, pid, since)
       VALUES (1, @owner, @role, @host, @pid, @since)
       ON CONFLICT (one) DO UPDATE SET owner = excluded.owner, role = excluded.role,
              host = excluded.host, pid = excluded.pid, since = excluded.since`,
    ).run(holder);
  } catch (err) {
    file.close();
    throw err;
  }
  held.add(file);
  return {
    lock: {
      holder,
      release() {
        if (!held.delete(file)) return;
        if (db.open) db.prepare('DELETE FROM writer_lock WHERE owner = ?').run(holder.owner);
        file.close();
      },
    },
  };
}

/**
 * Takes the writer lock, trying again every 100 ms for up to `waitMs` while `keepTrying` says so
 * of the holder (by default: whoever it is).
 */
export async function waitForWriterLock(
  dataDir: string,
  db: StateDb,
  role: string,
  opts: {
    readonly waitMs: number;
    readonly keepTrying?: (holder: WriterHolder | undefined) => boolean;
    readonly signal?: AbortSignal;
  },
): Promise<LockAttempt> {
  const deadline = Date.now() + opts.waitMs;
  for (;;) {
    const attempt = takeWriterLock(dataDir, db, role);
    if (attempt.lock) return attempt;
    const again = opts.keepTrying?.(attempt.heldBy) ?? true;
    if (!again || Date.now() >= deadline || opts.signal?.aborted) return attempt;
    await sleep(100);
  }
}

/**
 * Who holds the writer lock now. A probe that takes nothing: a read of the lock file, which the
 * holder's exclusive lock refuses (and which writes nothing, so it answers on a full disk too).
 * Without `db` (state.db cannot be opened) who holds it is not named.
 */
export function writerLockState(
  dataDir: string,
  db: StateDb | undefined,
): { readonly held: false } | { readonly held: true; readonly holder: WriterHolder | undefined } {
  if (!lockHeld(dataPaths(dataDir).writerLock)) return { held: false };
  return { held: true, holder: db === undefined ? undefined : recordedHolder(db) };
}

/** Whether a connection (of any process) holds the lock file's exclusive lock. */
function lockHeld(path: string): boolean {
  let file: Database.Database;
  try {
    file = new Database(path, { readonly: true, fileMustExist: true, timeout: 0 });
  } catch (err) {
    // No lock file: no daemon ever ran on this data dir.
    if ((err as { code?: string }).code === 'SQLITE_CANTOPEN') return false;
    throw err;
  }
  try {
    file.prepare('SELECT COUNT(*) FROM sqlite_master').get();
    return false;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return true;
    throw err;
  } finally {
    file.close();
  }
}

/** "the daemon (pid 12 on host box-1, since 2026-11-25T14:00:00.000Z)". */
export function describeHolder(holder: WriterHolder | undefined): string {
  if (holder === undefined) return 'another process (not yet named)';
  const who = holder.role === 'daemon' ? 'the daemon' : `\`${holder.role}\``;
  return `${who} (pid ${holder.pid} on host ${holder.host}, since ${new Date(holder.since).toISOString()})`;
}
