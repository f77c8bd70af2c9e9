import { CodedError } from '../../failures/codedError.ts';

/**
 * The worker thread writing a scratch file failed (a full disk, an I/O error, the thread gone):
 * nothing of the set was applied. `cause` is the worker's error as it reported it (its `code`,
 * e.g. SQLITE_FULL, kept).
 */
export class StagingError extends CodedError {
  readonly code = 'E_STAGING';

  constructor(name: string, cause: Error) {
    super(`the scratch file ${name} could not be written: ${cause.message}`, { cause });
  }
}
