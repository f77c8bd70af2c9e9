import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { StateDb } from '../db.ts';
import { PROCESS_TOKEN, writerLockState } from '../lock/writerLock.ts';

/** Scratch databases on disk: where they live, and which of them nobody needs any more. */

/** The folder of scratch databases under the data dir. */
export function stagingDir(dataDir: string): string {
  return join(dataDir, 'staging');
}

export function removeStagingFile(path: string): void {
  for (const p of [path, `${path}-journal`]) rmSync(p, { force: true });
}

/** A new scratch file's name: this process's token, then random (`<token>-<hex><suffix>`). */
export function scratchName(random: string, suffix: string): string {
  return `${PROCESS_TOKEN}-${random}${suffix}`;
}

/**
 * Deletes scratch databases nobody needs: not named by a `staged_applies` row and not made by
 * another process that holds the writer lock (a crash before the apply was decided leaves such
 * files behind). Called at start, when this process is staging nothing yet.
 */
export function removeOrphanStagingFiles(
  dataDir: string,
  db: StateDb,
  keep: ReadonlySet<string>,
): number {
  const dir = stagingDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  const writer = liveWriter(dataDir, db);
  let removed = 0;
  for (const name of names) {
    const base = name.replace(/-journal$/, '');
    if (keep.has(base) || madeBy(base, writer)) continue;
    rmSync(join(dir, name), { force: true });
    removed++;
  }
  return removed;
}

/**
 * Whether a scratch database (by name) was made by another process that holds the data dir's
 * writer lock now (src/state/lock/writerLock.ts): such a set is that process's to apply, however
 * long its merge takes. No process id is compared (a process of another container has ids of
 * its own): the name starts with its maker's token, and the lock is the kernel's.
 */
export function stagedByOtherLiveWriter(name: string, dataDir: string, db: StateDb): boolean {
  return madeBy(name, liveWriter(dataDir, db));
}

/** The token of the process holding the writer lock, if it is another. */
function liveWriter(dataDir: string, db: StateDb): string | undefined {
  const state = writerLockState(dataDir, db);
  const owner = state.held ? state.holder?.owner : undefined;
  return owner === PROCESS_TOKEN ? undefined : owner;
}

function madeBy(name: string, token: string | undefined): boolean {
  return token !== undefined && name.startsWith(`${token}-`);
}
