import type { StockKind } from '../../domain/stock.ts';
import { CodedError } from '../../failures/codedError.ts';

/**
 * A full export met a portal whose stock of its kind could not be read (yet): the file stays in
 * inbox/ and is tried again later.
 */
export class PortalStockUnknownError extends CodedError {
  readonly code = 'E_PORTAL_STOCK_UNKNOWN';

  constructor(name: string, kind: StockKind) {
    super(
      `${name} is a full export, and the portal's ${kind} stock could not be read to know which keys it omits; it stays in inbox/ and will be read again`,
    );
  }
}

/** The file changed between the hash and the parse: leave it in inbox/, try again later. */
export class FileChangedError extends CodedError {
  readonly code = 'E_FILE_CHANGED';

  constructor(name: string) {
    super(`${name} changed while it was being read; it stays in inbox/ and will be read again`);
  }
}
