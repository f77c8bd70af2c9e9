import { type CodedError, isCodedError } from './codedError.ts';

/**
 * What to do about a failure, decided once for every caller (the push, the confirmations, the job
 * workers), so that no caller compares error codes of its own. Every code of codedError.ts has
 * its decision below; docs/failures.md shows them with the retries around them. The level below
 * this one is decided in this folder too: within one portal call, whether an attempt that met a
 * 401, a 429, a 5xx or no answer is sent again, after how long, or ends the call with which error
 * (callRetry.ts; src/api/request.ts only carries it out). The error that ends a call comes here.
 *
 * - `final`: this work cannot succeed as it stands. For an item or a confirmation the portal
 *   refused: store it with the portal's message and show it in `failures` (retried only with the
 *   long item back-off or by an operator); for a job: fail it without retrying it.
 * - `retry`: may pass (5xx, reset, timeout, 429 after the call's own retries, a file still being
 *   written, a disk that was full): try again later, not before `notBefore` when a time is known;
 * - `wait`: nothing is wrong with this work, but it cannot go before `until`: the call budget is
 *   spent, the login cap or the re-login spacing holds the next login, or the disk holding the
 *   data dir or state.db is full (isDiskFull: looked at again every DISK_FULL_WAIT_MS);
 * - `fix-config`: nothing will pass until a person acts (the portal refused the credentials, or
 *   answered 403 "insufficient permissions"; a setting is wrong): stop the lane, say so loudly,
 *   keep the work pending.
 */
export type FailureAction =
  | {
      readonly kind: 'final';
      /** The other side's own words (the portal's error message, an excerpt of its page), else ours. */
      readonly message: string;
      readonly status: number | undefined;
    }
  | {
      readonly kind: 'retry';
      /** Epoch ms before which a retry is pointless (Retry-After, a budget); undefined: our back-off. */
      readonly notBefore: number | undefined;
      /** The request may have been applied although no usable answer came back. */
      readonly outcomeUnknown: boolean;
    }
  | {
      readonly kind: 'wait';
      readonly until: number;
      readonly reason: string;
      /**
       * What holds the work: this lane's share of the call budget, the next login, or a full
       * disk (nothing can be recorded until space returns).
       */
      readonly holds: 'budget' | 'login' | 'disk';
    }
  | { readonly kind: 'fix-config'; readonly reason: string };

/** What a portal error tells beyond its code (PortalError's fields). */
interface PortalFacts {
  readonly status?: number | undefined;
  readonly retryAt?: number | undefined;
  readonly retryable?: boolean;
  readonly outcomeUnknown?: boolean;
  readonly apiMessage?: string | undefined;
  readonly excerpt?: string | undefined;
}

/** How long work that met a full disk waits before it is tried again. */
export const DISK_FULL_WAIT_MS = 10_000;

/**
 * The policy. 403 is `fix-config`, not `final`: the spec names it "insufficient permissions", a
 * property of the account, not of the item, so failing items for it would burn every pending key
 * into `failures` while nothing is wrong with them. A full disk (isDiskFull, whatever wraps it) is
 * `wait`: the work is fine, nothing can be recorded, and spending a job's attempts on it would
 * only fail the job. Any other error without a code of ours (a bug, an I/O error) is `retry` with
 * the outcome unknown: the job's own attempts and the periodic recovery take it again. `now`
 * (epoch ms) dates a wait that has no time of its own.
 */
export function failurePolicy(err: unknown, now: number = Date.now()): FailureAction {
  if (isDiskFull(err)) {
    return {
      kind: 'wait',
      until: now + DISK_FULL_WAIT_MS,
      reason: 'the disk is full: nothing can be recorded until space returns',
      holds: 'disk',
    };
  }
  if (!isCodedError(err)) return { kind: 'retry', notBefore: undefined, outcomeUnknown: true };
  const e = err as CodedError & PortalFacts;
  switch (e.code) {
    case 'E_BUDGET':
      return { kind: 'wait', until: e.retryAt ?? 0, reason: e.message, holds: 'budget' };
    case 'E_LOGIN_WAIT':
    case 'E_TOKEN_REFUSED':
      return { kind: 'wait', until: e.retryAt ?? 0, reason: e.message, holds: 'login' };
    case 'E_LOGIN_REJECTED':
    case 'E_LOGIN_BLOCKED':
      return { kind: 'fix-config', reason: e.message };
    case 'E_HTTP':
      return httpPolicy(e);
    case 'E_RATE_LIMITED':
    case 'E_NETWORK':
    case 'E_TIMEOUT':
    case 'E_BAD_RESPONSE':
    case 'E_CLOSED':
      return { kind: 'retry', notBefore: e.retryAt, outcomeUnknown: e.outcomeUnknown ?? false };
    case 'E_BULK_INCOMPLETE':
      // The answers before it are kept by the caller; what to do is what its cause says.
      return failurePolicy(e.cause);
    case 'E_DC_LIST_UNAVAILABLE':
    case 'E_REFERENCES_UNAVAILABLE':
      // Unknown centres in a file or the snapshot, or a products file while the portal's sites,
      // tax rates and centres could not be read: the source waits in place; not before the
      // portal can be asked again, when its cause says when.
      return { kind: 'retry', notBefore: notBefore(failurePolicy(e.cause)), outcomeUnknown: false };
    case 'E_FILE_CHANGED':
    case 'E_PORTAL_STOCK_UNKNOWN':
    case 'E_STAGING':
    case 'E_SNAPSHOT_UNREADABLE':
      // Nothing was applied: a file still being written, a portal read that did not complete, a
      // scratch file's disk full, a snapshot missing, locked or half-written.
      return { kind: 'retry', notBefore: undefined, outcomeUnknown: false };
    case 'E_FILE_FORMAT':
    case 'E_SNAPSHOT_QUERY':
    case 'E_HELD_UNKNOWN':
    case 'E_HELD_DECIDED':
    case 'E_HELD_FILE_GONE':
    case 'E_USAGE':
      // The same input fails the same way: a file's bytes, a snapshot query, an operator's
      // request on what is held, a command line.
      return { kind: 'final', message: e.message, status: undefined };
    case 'E_CONFIG':
      return { kind: 'fix-config', reason: e.message };
    case 'E_DISK_FULL':
      // Reached only through isDiskFull above; kept so that the switch decides every code.
      return { kind: 'wait', until: now + DISK_FULL_WAIT_MS, reason: e.message, holds: 'disk' };
    default:
      return undecided(e.code);
  }
}

/** A code without a decision: the type-check fails here before any run does. */
function undecided(code: never): never {
  throw new Error(`the failure policy has no decision for ${String(code)}`);
}

function httpPolicy(e: CodedError & PortalFacts): FailureAction {
  const status = e.status ?? 0;
  if (status === 403) {
    return {
      kind: 'fix-config',
      reason: `the portal answered 403 (insufficient permissions): ${portalWords(e)}`,
    };
  }
  if (e.retryable || status < 400 || status >= 500 || status === 401 || status === 429) {
    return { kind: 'retry', notBefore: e.retryAt, outcomeUnknown: e.outcomeUnknown ?? false };
  }
  return { kind: 'final', message: portalWords(e), status };
}

/** When a retry may pass, as far as an action says. */
function notBefore(action: FailureAction): number | undefined {
  if (action.kind === 'wait') return action.until;
  if (action.kind === 'retry') return action.notBefore;
  return undefined;
}

/** What the portal said: its error message, else the excerpt of its page, else our message. */
function portalWords(err: {
  apiMessage?: string | undefined;
  excerpt?: string | undefined;
  message: string;
}): string {
  return err.apiMessage ?? err.excerpt ?? err.message;
}

/** Error codes that say the disk is full: SQLite's, and the system's (no space, a quota spent). */
const DISK_FULL_CODES: ReadonlySet<string> = new Set([
  'SQLITE_FULL',
  'ENOSPC',
  'EDQUOT',
  'E_DISK_FULL',
]);

/**
 * Whether an error says the disk is full: SQLITE_FULL, ENOSPC or EDQUOT (a quota spent), or our
 * DiskFullError, on the error itself or on an error it wraps (`cause`: a scratch file's
 * StagingError, a worker thread's error copied by its code). Such an error is the machine's,
 * never the work's: it is the `wait` above, it never counts against an inbox file, and the daemon
 * names the full disk in its status (src/daemon/diskWatch.ts).
 */
export function isDiskFull(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 8 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** SQLite errors of the machine (locks, disk, memory), not of the data: `SQLITE_FULL`, … */
const MACHINE_SQLITE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|NOMEM|PROTOCOL)/;

/**
 * Whether an error is the machine's: an I/O error (an errno, a syscall) or one of SQLite's errors
 * of the machine (a lock, the disk, memory). On a full disk SQLite may say only "disk I/O error"
 * (SQLITE_IOERR_…: it could not grow state.db's shared-memory file): with too little space left
 * the disk is to blame (src/daemon/diskSpace.ts).
 */
export function isMachineError(err: unknown): boolean {
  const e = err as { errno?: unknown; syscall?: unknown; code?: unknown } | null;
  if (e === null || typeof e !== 'object') return false;
  if (typeof e.errno === 'number' || typeof e.syscall === 'string') return true;
  return typeof e.code === 'string' && MACHINE_SQLITE.test(e.code);
}

/**
 * Whether an error met while reading an inbox file counts as a failed attempt at the file itself
 * (three of them send it to failed/: src/inventory/ingest/attempts.ts). Passing troubles of the
 * machine or the portal never count — I/O errors, SQLite's errors of the machine (a full disk, a
 * lock), a file still being written, a DC list that could not be fetched — and the file waits in
 * inbox/ for them to pass; a scratch file's error is judged by its cause. Anything else (a bug, a
 * runtime limit this file meets) counts.
 */
export function countsAgainstFile(err: unknown): boolean {
  if (isDiskFull(err)) return false;
  if (isCodedError(err)) {
    if (err.code === 'E_STAGING') return countsAgainstFile(err.cause);
    if (
      err.code === 'E_FILE_CHANGED' ||
      err.code === 'E_DC_LIST_UNAVAILABLE' ||
      err.code === 'E_REFERENCES_UNAVAILABLE'
    )
      return false;
  }
  if (err === null || typeof err !== 'object') return true;
  return !isMachineError(err);
}
