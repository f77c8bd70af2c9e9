import { realpathSync, type StatsFs, statfsSync, statSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { dataPaths } from '../config/dataPaths.ts';
import { bytesText, type FreeSpace, tooLittle } from '../domain/diskState.ts';
import { CodedError } from '../failures/codedError.ts';
import { isDiskFull, isMachineError } from '../failures/failurePolicy.ts';
import type { Logger } from '../log/logger.ts';

/**
 * The disks the daemon writes: the data dir (SYNC_DATA_DIR: inbox/, processed/, …, the scratch
 * files) and state.db, when state.db is a link to a file on another disk. One path per disk (by
 * device), the data dir first.
 */
export function watchedPaths(dataDir: string): string[] {
  const paths = [dataDir];
  const stateDb = dataPaths(dataDir).stateDb;
  try {
    const real = realpathSync(stateDb);
    if (statSync(dirname(real)).dev !== statSync(dataDir).dev) paths.push(stateDb);
  } catch {
    // No state.db yet (or no data dir): the data dir is all there is.
  }
  return paths;
}

/** statfs of one path: what this process may still write there. */
export async function freeSpace(path: string): Promise<FreeSpace> {
  return spaceOf(path, await statfs(path));
}

function spaceOf(path: string, s: StatsFs): FreeSpace {
  // Root may write into the blocks a file system keeps back for it (ext4's 5 %); others may not.
  const blocks = process.getuid?.() === 0 ? s.bfree : s.bavail;
  return { path, freeBytes: blocks * s.bsize, freeInodes: s.files > 0 ? s.ffree : null };
}

/**
 * A command that could not open state.db: when the disk is full (an error of the machine, and a
 * watched path with too little space), a DiskFullError naming it; the error as it is otherwise.
 */
export function whenOpenFailed(dataDir: string, err: unknown): unknown {
  if (!isMachineError(innermost(err))) return err;
  let fullest: FreeSpace | undefined;
  for (const path of watchedPaths(dataDir)) {
    try {
      const space = spaceOf(path, statfsSync(path));
      if (fullest === undefined || space.freeBytes < fullest.freeBytes) fullest = space;
    } catch {
      // unreadable: not the one to blame
    }
  }
  if (fullest === undefined || (!isDiskFull(err) && !tooLittle(fullest))) return err;
  return new DiskFullError(
    fullest.path,
    fullest.freeBytes,
    `state.db cannot be opened (${(err as Error).message})`,
    { cause: err, advice: 'free space there' },
  );
}

/** Each watched path's free space; a path that cannot be read is left out. */
export async function freeSpaces(paths: readonly string[]): Promise<FreeSpace[]> {
  const looks = await Promise.all(paths.map((p) => freeSpace(p).catch(() => undefined)));
  return looks.filter((s): s is FreeSpace => s !== undefined);
}

/** The disk holding the data dir or state.db is full: said in one line naming the path. */
export class DiskFullError extends CodedError {
  readonly code = 'E_DISK_FULL';
  readonly path: string;
  readonly freeBytes: number | null;

  constructor(
    path: string,
    freeBytes: number | null,
    what: string,
    options?: ErrorOptions & { readonly advice?: string },
  ) {
    super(
      `the disk holding ${path} is full (${bytesText(freeBytes)} free): ${what}; ${options?.advice ?? 'free space there, then start again'}`,
      options,
    );
    this.path = path;
    this.freeBytes = freeBytes;
  }
}

/**
 * The watched path with the least space: the one a disk-full error met at start is blamed on
 * (the error itself names no path: SQLite's says "database or disk is full").
 */
export async function fullestPath(dataDir: string): Promise<FreeSpace | undefined> {
  const spaces = await freeSpaces(watchedPaths(dataDir));
  return spaces.sort((a, b) => a.freeBytes - b.freeBytes)[0];
}

/**
 * A start that failed: when for a full disk, the DiskFullError to end it with (one line naming
 * the path and what could not be written), logged as `disk.full`; any other error as it is. A
 * full disk is an error that says so, or an I/O error while a watched path has too little space
 * (SQLite opening state.db on a full disk says "disk I/O error": its shared-memory file cannot
 * grow).
 */
export async function diskFullAtStart(
  dataDir: string,
  err: unknown,
  log: Logger,
): Promise<unknown> {
  if (err instanceof DiskFullError || !isMachineError(innermost(err))) return err;
  const fullest = await fullestPath(dataDir);
  if (!isDiskFull(err) && (fullest === undefined || !tooLittle(fullest))) return err;
  const path = fullest?.path ?? dataDir;
  const freeBytes = fullest?.freeBytes ?? null;
  const failed = (err as { path?: unknown }).path;
  const what =
    typeof failed === 'string'
      ? `${failed} cannot be written, the daemon cannot start`
      : 'state.db cannot be written, the daemon cannot start';
  log.error(
    { event: 'disk.full', path, freeBytes, during: 'start' },
    `the disk holding ${path} is full (${bytesText(freeBytes)} free): the daemon cannot start`,
  );
  return new DiskFullError(path, freeBytes, what, { cause: err });
}

/** The error at the end of a chain of causes. */
function innermost(err: unknown): unknown {
  let e = err;
  for (let i = 0; i < 8; i++) {
    const cause = (e as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) return e;
    e = cause;
  }
  return e;
}
