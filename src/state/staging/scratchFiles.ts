import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Scratch databases on disk: where they live, and which of them nobody needs any more. */

/** The folder of scratch databases under the data dir. */
export function stagingDir(dataDir: string): string {
  return join(dataDir, 'staging');
}

export function removeStagingFile(path: string): void {
  for (const p of [path, `${path}-journal`]) rmSync(p, { force: true });
}

/**
 * Deletes scratch databases nobody needs: not named by a `staged_applies` row and not written by
 * another live process (a crash before the apply was decided leaves such files behind). Called at
 * start, when this process is staging nothing yet.
 */
export function removeOrphanStagingFiles(dataDir: string, keep: ReadonlySet<string>): number {
  const dir = stagingDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const base = name.replace(/-journal$/, '');
    if (keep.has(base) || stagedByOtherLiveProcess(base)) continue;
    rmSync(join(dir, name), { force: true });
    removed++;
  }
  return removed;
}

/**
 * Whether a scratch database (by name) was made by another process that is still running: its
 * name starts with that process's id. Such a set is that process's to apply (the daemon's, or a
 * `release` command's), however long its merge takes.
 */
export function stagedByOtherLiveProcess(name: string): boolean {
  const pid = Number(/^(\d+)-/.exec(name)?.[1]);
  return Number.isInteger(pid) && pid !== process.pid && isAlive(pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}
