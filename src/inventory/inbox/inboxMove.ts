import { constants, type Stats } from 'node:fs';
import {
  type FileHandle,
  lstat,
  open,
  readlink,
  rename,
  symlink,
  unlink,
  utimes,
} from 'node:fs/promises';
import { dirname } from 'node:path';
import { chunksOf } from '../../files/chunks.ts';
import { intoPlace, syncFolder } from '../../files/durable.ts';

/** The rename used to move a file; a seam so tests can make it fail with EXDEV. */
export type RenameFn = (from: string, to: string) => Promise<void>;

/**
 * What happened to the inbox entry: `renamed` (the normal case), `copied` (inbox/ is on another
 * file system: copied, made durable, then the source removed), `removed` (a FIFO, socket or
 * device across file systems: nothing to copy, the entry was removed; its report says what it
 * was), `gone` (no longer there), `replaced` (another file now has the name: left for its turn),
 * `rewritten` (the same file, written again since it was read: left in inbox/ to be read again).
 */
export type MoveResult = 'renamed' | 'copied' | 'removed' | 'gone' | 'replaced' | 'rewritten';

/** What identifies the entry that was read, and tells whether a regular file was written since. */
export type ReadStats = Pick<Stats, 'dev' | 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>;

/**
 * Moves the inbox entry `source` — the one that was read, identified by `read` (device and
 * inode) — to `destination`, in another folder of the data dir. A regular file written again
 * since it was read (size, mtime or ctime changed: its new content was never read) is not moved.
 *
 * Within one file system this is one `rename`: atomic, and both folders are flushed (fsync)
 * before it returns, so that the move is on disk before the ledger row says the file is done.
 * When inbox/ is a mount of its own,
 * rename fails with EXDEV and the entry is copied instead: to a hidden temp name in the
 * destination folder, fsynced, renamed into place, the folder fsynced, and only then the source
 * unlinked. A crash before the unlink leaves the source in inbox/ (and its ledger row
 * `committed`), so the next pass copies it again over the identical copy and then unlinks it:
 * never lost, never in both places once finished. A crash during the copy leaves at most a
 * hidden `.<name>.<hex>.tmp` in the destination folder, never read by anything.
 *
 * Links are never followed: a symbolic link is recreated (same target text) at the destination.
 */
export async function moveInboxEntry(
  source: string,
  destination: string,
  read: ReadStats,
  renameFn: RenameFn = rename,
): Promise<MoveResult> {
  const now = await lstatOrUndefined(source);
  if (now === undefined) return 'gone'; // moved already (a second pass) or removed by the operator
  if (!sameEntry(now, read)) return 'replaced';
  if (now.isFile() && rewritten(now, read)) return 'rewritten';
  let renamed = true;
  try {
    await renameFn(source, destination);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    renamed = false;
  }
  if (renamed) {
    // The rename records progress (the file is done): on disk before the ledger says so.
    await syncFolder(dirname(destination));
    await syncFolder(dirname(source));
    return 'renamed';
  }
  // A FIFO, socket or device holds no content to copy (and Node cannot recreate one): it is
  // only removed from inbox/.
  const copies = now.isFile() || now.isSymbolicLink();
  if (now.isSymbolicLink()) {
    const target = await readlink(source);
    await intoPlace(destination, (tmp) => symlink(target, tmp));
  } else if (now.isFile()) {
    const copied = await copyRegular(source, destination, read);
    if (copied !== 'copied') return copied;
  }
  const still = await lstatOrUndefined(source);
  if (still === undefined) return copies ? 'copied' : 'gone';
  if (!sameEntry(still, read)) return 'replaced';
  await unlink(source);
  await syncFolder(dirname(source));
  return copies ? 'copied' : 'removed';
}

/** Copies the regular file `source` (only if it is still the inode read) into place; durable. */
async function copyRegular(
  source: string,
  destination: string,
  read: ReadStats,
): Promise<'copied' | 'gone' | 'replaced' | 'rewritten'> {
  let from: FileHandle;
  try {
    from = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'gone';
    if (code === 'ELOOP') return 'replaced';
    throw err;
  }
  try {
    const st = await from.stat();
    if (!st.isFile() || !sameEntry(st, read)) return 'replaced';
    if (rewritten(st, read)) return 'rewritten';
    await intoPlace(destination, async (tmp) => {
      const to = await open(tmp, 'wx', st.mode & 0o777);
      try {
        await copyContent(from, to);
        await to.sync();
      } finally {
        await to.close();
      }
      // The stored copy keeps the ERP's modification time, as a rename would.
      await utimes(tmp, st.atime, st.mtime);
    });
    return 'copied';
  } finally {
    await from.close();
  }
}

/** Copies through one reused buffer (chunksOf). */
async function copyContent(from: FileHandle, to: FileHandle): Promise<void> {
  let position = 0;
  for await (const chunk of chunksOf(from)) {
    for (let done = 0; done < chunk.length; ) {
      const { bytesWritten } = await to.write(chunk, done, chunk.length - done, position + done);
      done += bytesWritten;
    }
    position += chunk.length;
  }
}

function sameEntry(a: Pick<Stats, 'dev' | 'ino'>, b: Pick<Stats, 'dev' | 'ino'>): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

/**
 * Whether the file was written since it was read: its size, modification time or change time
 * differs (the change time also moves when a tool writes and then sets the old mtime back).
 */
function rewritten(now: ReadStats, read: ReadStats): boolean {
  return now.size !== read.size || now.mtimeMs !== read.mtimeMs || now.ctimeMs !== read.ctimeMs;
}

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
