/** Bad command-line usage: exit code 2 with this message. */
import { CodedError } from '../failures/codedError.ts';

export class UsageError extends CodedError {
  readonly code = 'E_USAGE';

  constructor(message: string) {
    super(message);
  }
}
