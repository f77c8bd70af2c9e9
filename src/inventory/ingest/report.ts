import type { ConfirmationResult } from '../../state/confirmations.ts';
import { fitName } from '../names.ts';
import type { TextEncoding } from '../parse/encoding.ts';
import type { InboxFormat, PositionUnit } from '../parse/records.ts';
import type { FileKind } from '../validate/kinds.ts';
import type { DuplicateKey, RejectedRow } from './collect.ts';

/** Most per-row confirmation outcomes listed in a report; the rest are counted. */
export const MAX_CONFIRMATIONS_LISTED = 10_000;

export type ReportOutcome = 'processed' | 'failed' | 'duplicate';

/** How a file was read (product contract, "ERP exports as they come"). */
export interface ReadingFields {
  /** The `match` of the profile the file was read with; null: none fitted its name. */
  readonly profile: string | null;
  /** Delimited text: what it was decoded as; null for other formats (or before its header). */
  readonly encoding: TextEncoding | null;
  /** Delimited text: the delimiter used. */
  readonly delimiter: string | null;
  /** The line (delimited text) or row (`.xlsx`) the header was found on. */
  readonly headerLine: number | null;
  /** Accepted rows whose negative quantity was offered as 0 (`negative: "zero"`). */
  readonly clamped: number;
  /** Keys the file did not name that a full export (`absent: "zero"`) set to 0. */
  readonly absentZeroed: number;
}

/** The `<stored name>.report.json` written beside each handled file (see docs/inbox.md). */
export interface FileReport extends ReadingFields {
  readonly file: string;
  readonly storedAs: string;
  readonly ledgerId: number;
  readonly outcome: ReportOutcome;
  readonly reason?: string;
  readonly kind: FileKind | null;
  readonly format: InboxFormat | null;
  /** What `line` means in `rejected` and elsewhere: a physical line, or a JSON array element. */
  readonly positions: PositionUnit;
  /** `sha256:<hex>` of the content; null for links and special files (never read). */
  readonly contentHash: string | null;
  readonly size: number;
  readonly rowsRead: number;
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
  readonly rejected: readonly RejectedRow[];
  readonly rejectedOmitted: number;
  readonly duplicates: {
    readonly rows: number;
    readonly keys: readonly DuplicateKey[];
    readonly keysOmitted: number;
  };
  readonly ignoredColumns: readonly string[];
  readonly distributionCentresChecked?: boolean;
  readonly stock?: {
    readonly keys: number;
    readonly differingFromPortal: number;
    readonly newlyPending: number;
    readonly failuresReplaced: number;
    /** Rows not applied because a newer file (by modification time) or snapshot set the key. */
    readonly supersededByNewerFile: number;
  };
  readonly confirmations?: {
    readonly new: number;
    readonly duplicate: number;
    readonly conflict: number;
    readonly rows: readonly ConfirmationResult[];
    readonly rowsOmitted: number;
  };
  readonly duplicateOf?: {
    readonly ledgerId: number;
    readonly file: string;
    readonly storedAs: string | null;
  };
  readonly timing: {
    readonly receivedAt: string;
    readonly finishedAt: string;
    readonly ms: number;
  };
}

/** `20261122T014501Z` for a time in epoch milliseconds. */
export function compactStamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * The longest stored name, in bytes. File names are limited to 255 bytes (NAME_MAX), and the
 * longest name made from a stored one is the report's temp file,
 * `.<stored>.report.json.<8 hex>.tmp`: 26 bytes more.
 */
export const MAX_STORED_NAME_BYTES = 255 - 26;

/**
 * The name a handled file is stored under: unique by the ledger id, readable by time. An
 * original name too long to fit behind the prefix has its stem cut short (whole characters, never
 * half a UTF-8 sequence), `~` marking the cut, its extension kept; the report keeps the original
 * name in `file`.
 */
export function storedName(receivedAt: number, ledgerId: number, name: string): string {
  const prefix = `${compactStamp(receivedAt)}-${ledgerId}-`;
  const room = MAX_STORED_NAME_BYTES - Buffer.byteLength(prefix);
  return `${prefix}${fitName(name, room)}`;
}

/**
 * What a stored name (or its report's name) says: when the file was received and its ledger id;
 * undefined for any other name (one the daemon did not write).
 */
export function parseStoredName(
  name: string,
): { readonly receivedAt: number; readonly ledgerId: number } | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-(\d+)-./.exec(name);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const receivedAt = Date.UTC(y, mo - 1, d, h, mi, se);
  return Number.isNaN(receivedAt) ? undefined : { receivedAt, ledgerId: Number(m[7]) };
}

export function reportPathFor(storedPath: string): string {
  return `${storedPath}.report.json`;
}
