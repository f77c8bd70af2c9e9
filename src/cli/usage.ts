/** Bad command-line usage: exit code 2 with this message. */
export class UsageError extends Error {
  readonly code = 'E_USAGE';

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
