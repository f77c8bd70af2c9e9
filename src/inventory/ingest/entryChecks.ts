import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { isIgnoredName } from '../inbox/inboxNames.ts';
import { type FileContext, type FileOutcome, notHandled } from './fileContext.ts';

/**
 * What an inbox entry is, before anything of it is read: gone, not an inbox file (a folder, a
 * temporary or hidden name), a link or special file (never followed or read: it goes to failed/
 * with a report), or a regular file, opened.
 */
export type InboxEntryKind =
  | { readonly type: 'done'; readonly outcome: FileOutcome }
  | { readonly type: 'special'; readonly st: Stats }
  | { readonly type: 'regular'; readonly handle: FileHandle; readonly st: Stats };

/** Looks at the entry and opens it when it is a regular file (the caller closes the handle). */
export async function checkEntry(ctx: FileContext): Promise<InboxEntryKind> {
  const { path, name, deps } = ctx;
  let st: Stats;
  try {
    st = await lstat(path);
  } catch (err) {
    if (isCode(err, 'ENOENT')) return gone();
    throw err;
  }
  if (st.isDirectory()) {
    deps.log.warn({ event: 'inbox.folder_ignored', file: name }, 'folders in inbox/ are not read');
    return done(notHandled('skipped', 'a folder: folders in inbox/ are not read'));
  }
  if (isIgnoredName(name)) return done(notHandled('skipped', 'a temporary or hidden name'));
  if (!st.isFile()) return { type: 'special', st };

  let handle: FileHandle;
  try {
    // O_NOFOLLOW: never read through a link that replaced the file after the lstat above;
    // O_NONBLOCK: never hang on a FIFO that did.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if (isCode(err, 'ENOENT')) return gone();
    if (isCode(err, 'ELOOP')) return { type: 'special', st: await lstat(path) };
    throw err;
  }
  try {
    const fst = await handle.stat();
    if (fst.isFile()) return { type: 'regular', handle, st: fst };
    await handle.close();
    return { type: 'special', st: fst };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** What a special entry is, for its report. */
export function specialReason(st: Stats): string {
  const what = st.isSymbolicLink()
    ? 'a symbolic link'
    : st.isFIFO()
      ? 'a named pipe (FIFO)'
      : st.isSocket()
        ? 'a socket'
        : 'a device or other special file';
  return `${what}: inbox files must be regular files; links and special files are never followed or read`;
}

const done = (outcome: FileOutcome) => ({ type: 'done', outcome }) as const;
const gone = () => done(notHandled('missing', 'no longer in inbox/'));

function isCode(err: unknown, code: string): boolean {
  return (err as { code?: unknown } | null)?.code === code;
}
