/**
 * Every error of ours carries one of these stable codes: branch on the code (or the class), never
 * on the message. Each code has its decision in failurePolicy.ts, and the type-check fails for a
 * code listed here that the policy does not decide on.
 */
export const ERROR_CODES = [
  // The portal client (src/api/portalErrors.ts).
  'E_HTTP',
  'E_RATE_LIMITED',
  'E_NETWORK',
  'E_TIMEOUT',
  'E_BUDGET',
  'E_LOGIN_BLOCKED',
  'E_LOGIN_REJECTED',
  'E_LOGIN_WAIT',
  'E_TOKEN_REFUSED',
  'E_BAD_RESPONSE',
  'E_CLOSED',
  'E_BULK_INCOMPLETE',
  // Inventory: an inbox file, the DC list, the snapshot, the staged set, what is held.
  'E_FILE_CHANGED',
  'E_FILE_FORMAT',
  'E_DC_LIST_UNAVAILABLE',
  'E_PORTAL_STOCK_UNKNOWN',
  'E_STAGING',
  'E_SNAPSHOT_UNREADABLE',
  'E_SNAPSHOT_QUERY',
  'E_HELD_UNKNOWN',
  'E_HELD_DECIDED',
  'E_HELD_FILE_GONE',
  // The machine: the disk holding the data dir or state.db is full.
  'E_DISK_FULL',
  // New products: the portal's reference data.
  'E_REFERENCES_UNAVAILABLE',
  // Settings and the command line.
  'E_CONFIG',
  'E_USAGE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The base of every error of ours: a stable code, a message without secrets, a cause. */
export abstract class CodedError extends Error {
  abstract readonly code: ErrorCode;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

export function isCodedError(err: unknown): err is CodedError {
  return err instanceof CodedError;
}
