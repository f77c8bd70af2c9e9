import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, lstat, open, rename, rm, unlink, utimes } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes that survive a crash or a power loss: content is flushed (fsync) before it is renamed
 * into view, and the folder is flushed after the rename, so a name that records progress (a
 * report, an outbox file, a stored inbox file) never points at content that was lost.
 */

/** A hidden temporary name beside `path`: `.<name>.<8 hex>.tmp` (ignored by every reader here). */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Creates (or truncates) `path`, writes `data` and flushes it to disk. */
export async function writeDurably(
  path: string,
  data: string | Uint8Array,
  mode = 0o644,
): Promise<void> {
  const handle = await open(path, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a folder, so that renames and creations in it are on disk. */
export async function syncFolder(folder: string): Promise<void> {
  const dir = await open(folder, constants.O_RDONLY);
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** Renames, then flushes the destination's folder (and the source's, when another). */
export async function renameDurably(from: string, to: string): Promise<void> {
  await rename(from, to);
  await syncFolder(dirname(to));
  if (dirname(from) !== dirname(to)) await syncFolder(dirname(from));
}

/**
 * Puts an entry in place at `path` atomically: `make` creates it under a hidden temporary name
 * beside it (and must flush what it writes), then it is renamed over `path` and the folder
 * flushed. The temporary entry is removed when anything fails (a full disk leaves no partial
 * file). `tmp` names it where a folder's own clean-up must recognise its temporary files (the
 * outbox's hand-overs); tempPathFor(path) otherwise.
 */
export async function intoPlace(
  path: string,
  make: (tmp: string) => Promise<void>,
  tmp = tempPathFor(path),
): Promise<void> {
  try {
    await make(tmp);
    await renameDurably(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Writes a file atomically and durably: a reader sees the old content or the whole new one. */
export function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  return intoPlace(path, (tmp) => writeDurably(tmp, data));
}

/**
 * Moves the file `from` to `to`, a name that must not exist: never replaces a file there (the
 * move fails with EEXIST). Within one file system a hard link, then the old name removed, each
 * folder flushed: a crash in between leaves the file under both names (`from` then has two
 * links; calling this again, or unlinking `from`, finishes). Across file systems (EXDEV) a
 * durable copy keeping the modification time, renamed into place, then the source removed.
 */
export async function moveNoClobber(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && (await sameFile(from, to))) {
      // A move a crash cut short: only the old name is left to remove.
    } else if (code === 'EXDEV') {
      await copyInto(from, to);
    } else {
      throw err;
    }
  }
  await syncFolder(dirname(to));
  await unlink(from);
  await syncFolder(dirname(from));
}

async function sameFile(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([lstat(a), lstat(b)]);
  return x.ino === y.ino && x.dev === y.dev;
}

async function copyInto(from: string, to: string): Promise<void> {
  const st = await lstat(from);
  if ((await lstat(to).catch(() => undefined)) !== undefined) {
    throw Object.assign(new Error(`EEXIST: ${to} already exists`), { code: 'EEXIST' });
  }
  await intoPlace(to, async (tmp) => {
    await copyFile(from, tmp);
    const handle = await open(tmp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await utimes(tmp, st.atime, st.mtime);
  });
}
