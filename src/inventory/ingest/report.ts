import { open } from 'node:fs/promises';
import { emptyOfferSummary } from '../../domain/stockRules.ts';
import { intoPlace } from '../../files/durable.ts';
import type { ConfirmationResult } from '../../state/confirmations.ts';
import type { ApplyResult } from '../../state/desiredStock.ts';
import type { GuardReport } from '../apply/guardFile.ts';
import { type StockSummary, stockSummary } from '../apply/stockSummary.ts';
import type { ReportOutcome } from '../inbox/storedNames.ts';
import type { TextEncoding } from '../parse/encoding.ts';
import { type InboxFormat, type PositionUnit, positionUnit } from '../parse/records.ts';
import type { FileKind } from '../validate/kinds.ts';
import type { CollectedFile, DuplicateKey, RejectedRow } from './collect.ts';

/** Most per-row confirmation outcomes listed in a report; the rest are counted. */
export const MAX_CONFIRMATIONS_LISTED = 10_000;

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
  /** Stopped by the guard rails: in held/ until an operator releases or rejects it. */
  readonly held?: boolean;
  /** What the guard rails found (stock files, when they are on). */
  readonly guard?: GuardReport;
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
  /** DC rows whose ERP location code was mapped to a portal DC code (STOCK_RULES_FILE). */
  readonly locationsMapped?: number;
  readonly stock?: StockSummary;
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

/** What every report says, whatever happened to the file. */
export interface ReportBase {
  readonly file: string;
  readonly receivedAt: number;
  readonly now: number;
  readonly ledgerId: number;
  readonly storedAs: string;
  readonly outcome: ReportOutcome;
  readonly format: InboxFormat | undefined;
  readonly kind: FileKind | undefined | null;
  readonly hash: string | null;
  readonly size: number;
}

export function baseReport(b: ReportBase): FileReport {
  return {
    file: b.file,
    storedAs: b.storedAs,
    ledgerId: b.ledgerId,
    outcome: b.outcome,
    kind: b.kind ?? null,
    format: b.format ?? null,
    positions: b.format ? positionUnit(b.format) : 'line',
    contentHash: b.hash === null ? null : `sha256:${b.hash}`,
    size: b.size,
    rowsRead: 0,
    rowsAccepted: 0,
    rowsRejected: 0,
    rejected: [],
    rejectedOmitted: 0,
    duplicates: { rows: 0, keys: [], keysOmitted: 0 },
    ignoredColumns: [],
    profile: null,
    encoding: null,
    delimiter: null,
    headerLine: null,
    clamped: 0,
    absentZeroed: 0,
    timing: {
      receivedAt: new Date(b.receivedAt).toISOString(),
      finishedAt: new Date(b.now).toISOString(),
      ms: b.now - b.receivedAt,
    },
  };
}

/** The counts and lists of a file that was read (processed, or failed as a whole). */
export interface ReadCounts {
  readonly rowsRead: number;
  readonly rowsAccepted?: number;
  readonly rowsRejected?: number;
  readonly rejected?: readonly RejectedRow[];
  readonly rejectedOmitted?: number;
  readonly ignoredColumns?: readonly string[];
}

/** A file that cannot be applied as a whole: why, and what was read of it. */
export function failedReport(base: FileReport, reason: string, u: ReadCounts): FileReport {
  return {
    ...base,
    reason,
    rowsRead: u.rowsRead,
    rowsAccepted: u.rowsAccepted ?? 0,
    rowsRejected: u.rowsRejected ?? 0,
    rejected: u.rejected ?? [],
    rejectedOmitted: u.rejectedOmitted ?? 0,
    ignoredColumns: u.ignoredColumns ?? [],
  };
}

/** A processed file: its counts, rejected rows, duplicates and ignored columns. */
export function readReport(base: FileReport, c: CollectedFile): FileReport {
  return {
    ...base,
    rowsRead: c.rowsRead,
    rowsAccepted: c.rowsAccepted,
    rowsRejected: c.rowsRejected,
    rejected: c.rejected,
    rejectedOmitted: c.rejectedOmitted,
    duplicates: c.duplicates,
    ignoredColumns: c.ignoredColumns,
  };
}

/** A processed stock file; `stock` is completed by the merge's last transaction. */
export function stockReport(base: FileReport, c: CollectedFile, applied?: ApplyResult): FileReport {
  return {
    ...readReport(base, c),
    distributionCentresChecked: c.kind === 'dc_stock' ? c.dcChecked : undefined,
    locationsMapped: c.kind === 'dc_stock' ? c.locationsMapped : undefined,
    stock: stockSummary(
      applied ?? {
        rows: 0,
        differing: 0,
        newlyPending: 0,
        failuresCleared: 0,
        superseded: 0,
        offers: emptyOfferSummary(),
      },
    ),
  };
}

/** A processed confirmations file, with the outcome of each row (the first 10,000). */
export function confirmationsReport(
  base: FileReport,
  c: CollectedFile,
  results: readonly ConfirmationResult[],
): FileReport {
  const tally = { new: 0, duplicate: 0, conflict: 0 };
  for (const r of results) tally[r.outcome]++;
  const listed = results.slice(0, MAX_CONFIRMATIONS_LISTED);
  return {
    ...readReport(base, c),
    confirmations: { ...tally, rows: listed, rowsOmitted: results.length - listed.length },
  };
}

/** Content already applied: nothing changed. */
export function duplicateReport(
  base: FileReport,
  prior: { readonly id: number; readonly name: string; readonly destName: string | null },
): FileReport {
  return {
    ...base,
    reason: `same content as ${prior.name} (ledger ${prior.id}), already applied; nothing changed`,
    duplicateOf: { ledgerId: prior.id, file: prior.name, storedAs: prior.destName },
  };
}

/** A value no report holds, and how JSON.stringify writes it: where the streamed list goes. */
const REJECTED_MARK = '\u0000rejected\u0000';
const REJECTED_SLOT = JSON.stringify(REJECTED_MARK);

/**
 * Writes a report atomically and durably. With `rejections` (every rejected row, read a page at
 * a time), the `rejected` list is streamed from it into the file, one row per line, instead of
 * being built as one string: a file with a million bad rows names each of them in bounded
 * memory; `rejectedOmitted` is then 0.
 */
export async function writeReportFile(
  path: string,
  report: FileReport,
  rejections?: Iterable<RejectedRow>,
): Promise<void> {
  if (rejections === undefined) {
    await intoPlace(path, (tmp) => writeAll(tmp, [`${JSON.stringify(report, null, 2)}\n`]));
    return;
  }
  const text = JSON.stringify({ ...report, rejected: REJECTED_MARK, rejectedOmitted: 0 }, null, 2);
  const at = text.indexOf(REJECTED_SLOT);
  const head = text.slice(0, at);
  const tail = `${text.slice(at + REJECTED_SLOT.length)}\n`;
  await intoPlace(path, (tmp) => writeAll(tmp, streamRejected(head, rejections, tail)));
}

function* streamRejected(
  head: string,
  rows: Iterable<RejectedRow>,
  tail: string,
): Generator<string> {
  yield `${head}[`;
  let first = true;
  let chunk = '';
  for (const r of rows) {
    chunk += `${first ? '' : ','}\n    ${JSON.stringify(r)}`;
    first = false;
    if (chunk.length >= 65_536) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}${first ? ']' : '\n  ]'}${tail}`;
}

async function writeAll(path: string, parts: Iterable<string>): Promise<void> {
  const handle = await open(path, 'w', 0o644);
  try {
    for (const part of parts) await handle.write(part);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
