import { emptyOfferSummary } from '../../domain/stockRules.ts';
import type { ConfirmationResult } from '../../state/shipments/confirmations.ts';
import type { ApplyResult } from '../../state/stock/desiredStock.ts';
import type { GuardReport } from '../apply/guardFile.ts';
import { type StockSummary, stockSummary } from '../apply/stockSummary.ts';
import type { ReportOutcome } from '../inbox/storedNames.ts';
import type { TextEncoding } from '../parse/encoding.ts';
import { type InboxFormat, type PositionUnit, positionUnit } from '../parse/records.ts';
import type { FileKind } from '../validate/kinds.ts';
import type { CollectedFile, DuplicateKey, RejectedRow, UnreadableFile } from './collect.ts';
import {
  type CatalogueGuard,
  type ProductState,
  type ProductsFields,
  productsFields,
} from './productsSection.ts';

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
  /** Rows a profile's `values` or `when` left out (`skip`), as if not in the file. */
  readonly skipped: number;
  /** Rows whose key keeps its value (`keep`): named, not changed. */
  readonly kept: number;
  /** Rows added to an earlier row of their key (`duplicates: "sum"`; `duplicates` lists them). */
  readonly summed: number;
}

/** The `<stored name>.report.json` written beside each handled file (see docs/inbox.md). */
export interface FileReport extends ReadingFields, Partial<ProductsFields> {
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

/** What every report of a file says: which file, its ledger row and stored name, when. */
export interface ReportHeader {
  readonly file: string;
  readonly receivedAt: number;
  readonly now: number;
  /** The `match` of the profile it was read with; null for none. */
  readonly profile: string | null;
  readonly ledgerId: number;
  readonly storedAs: string;
  /** Hex sha256 of the content. */
  readonly hash: string;
  readonly size: number;
}

/** A file read but refused as a whole: why, and what was read of it. */
export type UnreadableRead = Omit<UnreadableFile, 'format' | 'kind' | 'positions' | 'hash'> & {
  readonly format: InboxFormat | undefined;
  readonly kind: FileKind | undefined;
  readonly rowsAccepted?: number;
  readonly rowsRejected?: number;
  readonly rejected?: CollectedFile['rejected'];
  readonly rejectedOmitted?: number;
  readonly ignoredColumns?: string[];
};

/** What happened to the file: each ends in its own report (buildReport). */
export type ReportInput =
  /** A stock file applied (its `stock` counts are completed by the merge). */
  | {
      readonly type: 'stock';
      readonly read: CollectedFile;
      readonly absentZeroed: number;
      readonly guard: GuardReport | undefined;
    }
  /** A stock file the guard rails held: nothing applied. */
  | {
      readonly type: 'held';
      readonly read: CollectedFile;
      readonly absentZeroed: number;
      readonly guard: GuardReport;
      readonly heldId: number;
    }
  /** A confirmations file, with the outcome of each row. */
  | {
      readonly type: 'confirmations';
      readonly read: CollectedFile;
      readonly results: readonly ConfirmationResult[];
    }
  /** A products file: its products queued (or, held, none), the rest known to the portal. */
  | {
      readonly type: 'products';
      readonly read: CollectedFile;
      readonly queued: readonly ProductState[];
      readonly guard: CatalogueGuard | undefined;
    }
  /** A file that cannot be applied as a whole (unreadable, unsupported, given up). */
  | { readonly type: 'unreadable'; readonly read: UnreadableRead }
  /** Content already applied. */
  | {
      readonly type: 'duplicate';
      readonly prior: {
        readonly id: number;
        readonly name: string;
        readonly destName: string | null;
      };
      readonly kind: FileKind | null;
      readonly format: InboxFormat | undefined;
    }
  /** A link or special file, never read. */
  | { readonly type: 'special'; readonly reason: string };

/** The report of a handled file: the one place where a report is made. */
export function buildReport(h: ReportHeader, input: ReportInput): FileReport {
  switch (input.type) {
    case 'stock': {
      const { read, guard } = input;
      return {
        ...stockReport(common(h, 'processed', read, input.absentZeroed), read),
        ...(guard === undefined ? {} : { guard }),
      };
    }
    case 'held': {
      const { read, guard } = input;
      const { stock: _none, ...rest } = stockReport(
        common(h, 'held', read, input.absentZeroed),
        read,
      );
      return {
        ...rest,
        held: true,
        reason: `held by the guard rails: ${guard.reason}`,
        guard: { ...guard, heldId: input.heldId },
      };
    }
    case 'confirmations':
      return confirmationsReport(common(h, 'processed', input.read), input.read, input.results);
    case 'products': {
      const { read, guard } = input;
      const held = guard?.held === true;
      const base = readReport(common(h, held ? 'held' : 'processed', read), read);
      const p = read.products!;
      return {
        ...base,
        ...productsFields({ ...p, existingAtRead: p.existing }, input.queued, guard),
        ...(held ? { held: true, reason: `held by the guard rails: ${guard.reason}` } : {}),
      };
    }
    case 'unreadable': {
      const u = input.read;
      return failedReport(common(h, 'failed', u), u.reason, u);
    }
    case 'duplicate':
      return duplicateReport(
        common(h, 'duplicate', { format: input.format, kind: input.kind }),
        input.prior,
      );
    case 'special':
      return {
        ...common({ ...h, size: 0 }, 'failed', { format: undefined, kind: null }, 0, null),
        reason: input.reason,
      };
    default:
      return unknownInput(input);
  }
}

function unknownInput(input: never): never {
  throw new Error(`no report for ${JSON.stringify(input)}`);
}

/** What was read, as far as the report's common fields go. */
interface ReadShape {
  readonly format: InboxFormat | undefined;
  readonly kind: FileKind | undefined | null;
  readonly dialect?: CollectedFile['dialect'];
  readonly headerRow?: number;
  readonly clamped?: number;
  readonly skipped?: number;
  readonly kept?: number;
  readonly summed?: number;
}

/** The fields every report has, and how the file was read. */
function common(
  h: ReportHeader,
  outcome: ReportOutcome,
  read: ReadShape,
  absentZeroed = 0,
  hash: string | null = h.hash,
): FileReport {
  return {
    file: h.file,
    storedAs: h.storedAs,
    ledgerId: h.ledgerId,
    outcome,
    kind: read.kind ?? null,
    format: read.format ?? null,
    positions: read.format ? positionUnit(read.format) : 'line',
    contentHash: hash === null ? null : `sha256:${hash}`,
    size: h.size,
    rowsRead: 0,
    rowsAccepted: 0,
    rowsRejected: 0,
    rejected: [],
    rejectedOmitted: 0,
    duplicates: { rows: 0, keys: [], keysOmitted: 0 },
    ignoredColumns: [],
    profile: h.profile,
    encoding: read.dialect?.encoding ?? null,
    delimiter: read.dialect?.delimiter ?? null,
    headerLine: read.dialect?.headerLine ?? read.headerRow ?? null,
    clamped: read.clamped ?? 0,
    absentZeroed,
    skipped: read.skipped ?? 0,
    kept: read.kept ?? 0,
    summed: read.summed ?? 0,
    timing: {
      receivedAt: new Date(h.receivedAt).toISOString(),
      finishedAt: new Date(h.now).toISOString(),
      ms: h.now - h.receivedAt,
    },
  };
}

/** The counts and lists of a file that was read (processed, or failed as a whole). */
interface ReadCounts {
  readonly rowsRead: number;
  readonly rowsAccepted?: number;
  readonly rowsRejected?: number;
  readonly rejected?: readonly RejectedRow[];
  readonly rejectedOmitted?: number;
  readonly ignoredColumns?: readonly string[];
}

/** A file that cannot be applied as a whole: why, and what was read of it. */
function failedReport(base: FileReport, reason: string, u: ReadCounts): FileReport {
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
function readReport(base: FileReport, c: CollectedFile): FileReport {
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

/** No key merged yet: the merge's last transaction writes the real counts. */
const NOTHING_MERGED: ApplyResult = {
  rows: 0,
  differing: 0,
  newlyPending: 0,
  failuresCleared: 0,
  superseded: 0,
  offers: emptyOfferSummary(),
};

/** A processed stock file; `stock` is completed by the merge's last transaction. */
function stockReport(base: FileReport, c: CollectedFile): FileReport {
  return {
    ...readReport(base, c),
    distributionCentresChecked: c.kind === 'dc_stock' ? c.dcChecked : undefined,
    locationsMapped: c.kind === 'dc_stock' ? c.locationsMapped : undefined,
    stock: stockSummary(NOTHING_MERGED),
  };
}

/** A processed confirmations file, with the outcome of each row (the first 10,000). */
function confirmationsReport(
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
function duplicateReport(
  base: FileReport,
  prior: { readonly id: number; readonly name: string; readonly destName: string | null },
): FileReport {
  return {
    ...base,
    reason: `same content as ${prior.name} (ledger ${prior.id}), already applied; nothing changed`,
    duplicateOf: { ledgerId: prior.id, file: prior.name, storedAs: prior.destName },
  };
}
