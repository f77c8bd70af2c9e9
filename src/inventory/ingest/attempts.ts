import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { basename } from 'node:path';
import { systemClock } from '../../domain/clock.ts';
import { InboxAttempts } from '../../state/inbox/inboxAttempts.ts';
import { StagingError } from '../../state/staging/stagingError.ts';
import { fileIdentity } from '../inbox/inboxNames.ts';
import { DcListUnavailableError } from '../validate/dcDirectory.ts';
import {
  FileChangedError,
  type FileOutcome,
  type IngestDeps,
  processInboxFile,
} from './process.ts';

/** Tries of one file that end in an error that is not an I/O error before it goes to failed/. */
export const MAX_FILE_ATTEMPTS = 3;

/**
 * Handles one inbox file as processInboxFile does, and counts the attempts that end in an error
 * other than an I/O error (a bug, a runtime limit met by this file): durably, in state.db, by
 * the file's identity. At the MAX_FILE_ATTEMPTS-th such error the file goes to failed/ at once,
 * with the error as its reason, instead of being offered again for ever. I/O errors,
 * FileChangedError and DcListUnavailableError are passing troubles of the machine or the
 * portal: never counted, the file waits in inbox/ for them to pass.
 */
export async function ingestInboxFile(path: string, deps: IngestDeps): Promise<FileOutcome> {
  const clock = deps.clock ?? systemClock;
  const name = basename(path);
  const attempts = new InboxAttempts(deps.db);
  const withGiveUp: IngestDeps = {
    ...deps,
    giveUp: (st) => {
      const a = attempts.get(identityOf(name, st));
      return a !== undefined && a.attempts >= MAX_FILE_ATTEMPTS ? giveUpReason(a) : undefined;
    },
  };
  let outcome: FileOutcome;
  try {
    outcome = await processInboxFile(path, withGiveUp);
  } catch (err) {
    if (!countsAsAttempt(err)) throw err;
    const st = await lstat(path).catch(() => undefined);
    if (st === undefined || !st.isFile()) throw err;
    const error = describeError(err);
    const n = attempts.record(identityOf(name, st), name, error, clock.now());
    deps.log.warn(
      { event: 'file.attempt_failed', file: name, attempt: n, of: MAX_FILE_ATTEMPTS, err },
      n < MAX_FILE_ATTEMPTS
        ? `${name}: attempt ${n} of ${MAX_FILE_ATTEMPTS} failed (${error}); it stays in inbox/ and is tried again`
        : `${name}: attempt ${n} of ${MAX_FILE_ATTEMPTS} failed (${error}); it goes to failed/`,
    );
    if (n < MAX_FILE_ATTEMPTS) throw err;
    outcome = await processInboxFile(path, withGiveUp);
  }
  attempts.clear(name);
  return outcome;
}

/** A file as it was tried (inbox/inboxNames.ts fileIdentity): a rewrite or a replacement is another file. */
function identityOf(name: string, st: Pick<Stats, 'ino' | 'size' | 'mtimeMs'>): string {
  return fileIdentity({ name, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs });
}

function giveUpReason(a: { attempts: number; lastError: string }): string {
  return `${a.attempts} attempts at this file failed with an error that is not an I/O error; the last: ${a.lastError}`;
}

/** SQLite errors of the machine (locks, disk, memory), not of the file. */
const PASSING_SQLITE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|NOMEM|PROTOCOL)/;

/** Whether an error of processInboxFile counts as a failed attempt at the file itself. */
export function countsAsAttempt(err: unknown): boolean {
  // A worker's failure to write the scratch file: as its own error says.
  if (err instanceof StagingError) return countsAsAttempt(err.cause);
  if (err instanceof FileChangedError || err instanceof DcListUnavailableError) return false;
  const e = err as { errno?: unknown; syscall?: unknown; code?: unknown } | null;
  if (e === null || typeof e !== 'object') return true;
  if (typeof e.errno === 'number' || typeof e.syscall === 'string') return false; // I/O
  if (typeof e.code === 'string' && PASSING_SQLITE.test(e.code)) return false;
  return true;
}

/** One line for the report and the log: the error's class and message, cut to 500 characters. */
function describeError(err: unknown): string {
  const text =
    err instanceof Error ? `${err.name}: ${err.message}` : `thrown value: ${String(err)}`;
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
