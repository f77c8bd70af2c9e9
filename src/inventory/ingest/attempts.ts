import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { basename } from 'node:path';
import { systemClock } from '../../domain/clock.ts';
import { countsAgainstFile } from '../../failures/failurePolicy.ts';
import type { StateDb } from '../../state/db.ts';
import { InboxAttempts } from '../../state/inbox/inboxAttempts.ts';
import { fileIdentity } from '../inbox/inboxNames.ts';
import { type FileOutcome, type IngestDeps, processInboxFile } from './process.ts';

/** Tries of one file that end in a crash or an error that is not an I/O error before it goes to failed/. */
export const MAX_FILE_ATTEMPTS = 3;

/** What an attempt is recorded as before the file is read: what it stays if the process dies. */
export const CRASHED_WHILE_READING =
  'the process stopped while reading this file (killed, or out of memory)';

/**
 * Handles one inbox file as processInboxFile does, and counts its failed attempts durably, in
 * state.db, by the file's identity. An attempt is recorded before the file's rows are read (as
 * a crash: CRASHED_WHILE_READING) and taken back once the reading ends in this process, so that a
 * reading the process does not survive (SIGKILL, an out-of-memory abort, the kernel's OOM
 * killer) counts; so does an error the failure policy blames on the file (countsAgainstFile: a
 * bug, a runtime limit met by this file — not a passing trouble of the machine or the portal,
 * for which the file waits in inbox/). At the MAX_FILE_ATTEMPTS-th the file goes to failed/ with
 * the reason, unread: at once for an error, at the next offer (the daemon's start) for a crash.
 */
export async function ingestInboxFile(path: string, deps: IngestDeps): Promise<FileOutcome> {
  const clock = deps.clock ?? systemClock;
  const name = basename(path);
  const attempts = new InboxAttempts(deps.db);
  const owed = owedUndos(deps.db);
  settleOwed(attempts, owed);
  // The identity of the file whose reading was recorded ahead as an attempt, if one began.
  let begun: string | undefined;
  const withGiveUp: IngestDeps = {
    ...deps,
    giveUp: (st) => {
      const identity = identityOf(name, st);
      const a = attempts.get(identity);
      const counted = a === undefined ? 0 : a.attempts - (owed.has(identity) ? 1 : 0);
      return a !== undefined && counted >= MAX_FILE_ATTEMPTS ? giveUpReason(a) : undefined;
    },
    beforeRead: (st) => {
      const identity = identityOf(name, st);
      if (begun === identity) return;
      if (begun !== undefined) undoOrOwe(attempts, owed, begun);
      begun = undefined;
      // Recorded first, then named begun: a record that fails (a full disk) has nothing to undo.
      const n = attempts.record(identity, name, CRASHED_WHILE_READING, clock.now());
      begun = identity;
      if (n > 1) {
        deps.log.warn(
          { event: 'file.reading_again', file: name, attempt: n, of: MAX_FILE_ATTEMPTS },
          `${name}: reading it again, attempt ${n} of ${MAX_FILE_ATTEMPTS} (an earlier one failed or did not finish)`,
        );
      }
    },
  };
  let outcome: FileOutcome;
  try {
    outcome = await processInboxFile(path, withGiveUp);
  } catch (err) {
    // The reading ended here, not in a crash: the attempt counted ahead is taken back — or, when
    // state.db cannot take that now (a full disk), once it can: the error is what is thrown.
    if (begun !== undefined) undoOrOwe(attempts, owed, begun);
    begun = undefined;
    if (!countsAgainstFile(err)) throw err;
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

/**
 * Attempts counted ahead whose reading ended in this process (not in a crash) but whose undo
 * state.db could not take (a full disk), by connection: taken back at the next file's handling
 * that can write, and not counted meanwhile. A process that dies before then leaves them counted
 * as crashes, as it would have without the error.
 */
const owedByDb = new WeakMap<StateDb, Set<string>>();

function owedUndos(db: StateDb): Set<string> {
  let owed = owedByDb.get(db);
  if (owed === undefined) {
    owed = new Set();
    owedByDb.set(db, owed);
  }
  return owed;
}

/** Takes back an attempt counted ahead, or owes it when state.db cannot be written now. */
function undoOrOwe(attempts: InboxAttempts, owed: Set<string>, identity: string): void {
  try {
    attempts.undo(identity);
  } catch {
    owed.add(identity);
  }
}

/** Takes back the attempts owed, as far as state.db takes them now. */
function settleOwed(attempts: InboxAttempts, owed: Set<string>): void {
  for (const identity of [...owed]) {
    try {
      attempts.undo(identity);
    } catch {
      return;
    }
    owed.delete(identity);
  }
}

/** A file as it was tried (inbox/inboxNames.ts fileIdentity): a rewrite or a replacement is another file. */
function identityOf(name: string, st: Pick<Stats, 'ino' | 'size' | 'mtimeMs'>): string {
  return fileIdentity({ name, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs });
}

function giveUpReason(a: { attempts: number; lastError: string }): string {
  if (a.lastError === CRASHED_WHILE_READING) {
    return `the reading of this file ended in a crash ${a.attempts} times (the process stopped while reading it: killed, or out of memory); it is not read again`;
  }
  return `${a.attempts} attempts at this file failed with an error that is not an I/O error; the last: ${a.lastError}`;
}

/** One line for the report and the log: the error's class and message, cut to 500 characters. */
function describeError(err: unknown): string {
  const text =
    err instanceof Error ? `${err.name}: ${err.message}` : `thrown value: ${String(err)}`;
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
