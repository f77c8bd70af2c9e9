import { CodedError } from '../../failures/codedError.ts';

/** The codes of a failed read's error, by its failure code (readSnapshotSource throws it). */
const READ_ERROR_CODES = {
  query: 'E_SNAPSHOT_QUERY',
  dc_list: 'E_DC_LIST_UNAVAILABLE',
  portal_unknown: 'E_PORTAL_STOCK_UNKNOWN',
} as const;

/**
 * A snapshot read that failed, as an error for the job that asked for it: a wrong query
 * (E_SNAPSHOT_QUERY), unknown centres and no list (E_DC_LIST_UNAVAILABLE), a full picture and the
 * portal's stock unread (E_PORTAL_STOCK_UNKNOWN), else a snapshot missing, locked, corrupt or
 * changed while read (E_SNAPSHOT_UNREADABLE). `problem` is the failure's own code.
 */
export class SnapshotReadError extends CodedError {
  readonly code: 'E_SNAPSHOT_UNREADABLE' | (typeof READ_ERROR_CODES)[keyof typeof READ_ERROR_CODES];
  readonly problem: string;

  constructor(problem: string, reason: string) {
    super(`snapshot read failed: ${reason}`);
    this.problem = problem;
    this.code =
      READ_ERROR_CODES[problem as keyof typeof READ_ERROR_CODES] ?? 'E_SNAPSHOT_UNREADABLE';
  }
}

/**
 * Why a snapshot read failed, by code: missing | locked | corrupt | query | changed | dc_list |
 * portal_unknown | error (the `code` of a failed SnapshotOutcome and of `snapshot.failed`).
 */
export class SnapshotFailure extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** A query's failure: the SQLite code's meaning where it has one, else `query`. */
export function queryFailure(which: string, err: unknown): SnapshotFailure {
  const f = describeFailure(err);
  if (f.code !== 'error') return new SnapshotFailure(f.code, f.reason, { cause: err });
  return new SnapshotFailure('query', `the ${which} query failed: ${(err as Error).message}`, {
    cause: err,
  });
}

/** Any error of a read as a failure code and a reason (`error` where none fits). */
export function describeFailure(err: unknown): { code: string; reason: string } {
  if (err instanceof SnapshotFailure) return { code: err.code, reason: err.message };
  const code = String((err as { code?: unknown }).code ?? '');
  const message = err instanceof Error ? err.message : String(err);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return { code: 'locked', reason: `the snapshot is locked by another process: ${message}` };
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
    return {
      code: 'corrupt',
      reason: `the snapshot is corrupt or not a SQLite database: ${message}`,
    };
  if (code.startsWith('SQLITE_CANTOPEN') || code === 'ENOENT')
    return { code: 'missing', reason: `the snapshot cannot be opened: ${message}` };
  return { code: 'error', reason: message };
}
