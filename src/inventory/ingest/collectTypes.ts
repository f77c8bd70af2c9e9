import type { FileHandle } from 'node:fs/promises';
import type { LocationMap } from '../../domain/stockRules.ts';
import type { ConfirmationInput } from '../../state/shipments/confirmations.ts';
import type { Dialect, InboxFormat, PositionUnit, StringSpill } from '../parse/index.ts';
import type { StagingFile } from '../staging/stagingFile.ts';
import type { DcDirectory } from '../validate/dcDirectory.ts';
import type { FileKind } from '../validate/kinds.ts';
import type { ReadPlan } from '../validate/readPlan.ts';
import type { RowError } from '../validate/rows.ts';
import type { ProductReading, ProductsRead } from './productHandler.ts';
import type { DuplicateKey, Duplicates } from './rowHandlers.ts';
import type { StockRows } from './stockRows.ts';

/** What collectFile (collect.ts) takes and gives: its options and its two results. */

export interface RejectedRow extends RowError {
  readonly line: number;
}

export type { DuplicateKey };

export interface Common {
  readonly format: InboxFormat;
  readonly positions: PositionUnit;
  readonly rowsRead: number;
  /** sha256 of the bytes read, hex; undefined when reading stopped early. */
  readonly hash: string | undefined;
  /** What delimited text was read as (once its header was found); undefined for other formats. */
  readonly dialect?: Dialect;
  /** The worksheet row the header was found on (`.xlsx`). */
  readonly headerRow?: number;
  /** Accepted rows whose negative quantity was offered as 0 (a profile's `negative: "zero"`). */
  readonly clamped: number;
  /** Rows a profile's rules left out (`skip`) and rows whose key keeps its value (`keep`). */
  readonly skipped?: number;
  readonly kept?: number;
  /** Rows added to an earlier row of their key (`duplicates: "sum"`). */
  readonly summed?: number;
}

export interface CollectedFile extends Common {
  readonly ok: true;
  readonly kind: FileKind;
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
  readonly rejected: RejectedRow[];
  readonly rejectedOmitted: number;
  readonly ignoredColumns: string[];
  /** Stock rows by key (dedup: last row wins); empty for confirmations, and when staged. */
  readonly stock: StockRows;
  /** The staged set, when the rows went to a scratch database (CollectOptions.stage). */
  readonly staged?: StagingFile;
  /** Keys that rejected rows name (bad quantity, good SKU), when nothing is staged. */
  readonly namedByRejected: StockRows;
  /** Confirmation rows in file order; empty for stock. */
  readonly confirmations: ConfirmationInput[];
  /** A products file's products to create and those the portal has. */
  readonly products?: ProductsRead;
  readonly duplicates: Duplicates;
  /** Whether distribution-centre codes were checked against the portal's list. */
  readonly dcChecked: boolean;
  /** DC rows whose location code was mapped to a portal DC code (stock rules' `locations`). */
  readonly locationsMapped: number;
}

export interface UnreadableFile extends Common {
  readonly ok: false;
  readonly kind: FileKind | undefined;
  readonly reason: string;
  /** Rows that were bad on their own before the file was refused (none is applied). */
  readonly rowsRejected?: number;
  /** The staged set so far, when CollectOptions.stage was given: the caller discards it. */
  readonly staged?: StagingFile;
  readonly rejected?: RejectedRow[];
  readonly rejectedOmitted?: number;
}

export interface CollectOptions {
  readonly format: InboxFormat;
  readonly maxSkuLength: number;
  /** Checks DC codes (refreshing once per file when an unknown one appears); none: unchecked. */
  readonly dcDirectory?: DcDirectory;
  /** ERP location code → portal DC code, applied to DC rows before they are checked. */
  readonly locations?: LocationMap;
  /**
   * Stop after this many rows (a file's head read as a profile reads it): the result holds
   * those rows only, and no hash.
   */
  readonly maxRows?: number;
  /** Called after each stock row is taken, with the rows left out and kept by the profile so far. */
  readonly onRow?: (
    line: number,
    tally: { readonly skipped: number; readonly kept: number },
  ) => void;
  /** Called every 10,000 rows read. */
  readonly onProgress?: (rowsRead: number) => void;
  /** Largest record in bytes (INBOX_MAX_RECORD_BYTES); the readers' default when unset. */
  readonly maxRecordBytes?: number;
  /**
   * How to read the file: its profile's reader options, column mapping and quantity conventions
   * (readPlanFor). Unset: the defaults (encoding and delimiter detected, the header on line 1,
   * the API's field names, `.` as the decimal mark, negatives rejected).
   */
  readonly plan?: ReadPlan;
  /**
   * Where stock rows go: a scratch database made on the first stock row (bounded memory, for
   * ingestion); without it, rows are kept in memory (dry runs, tests). The caller owns the file
   * (discards it when the result is not applied).
   */
  readonly stage?: () => StagingFile;
  /** How a products file's rows are checked (IMAGE_TYPE, references, known products); unset: unchecked. */
  readonly products?: ProductReading;
  /** A workbook's open file, scratch folder and shared-strings table (XlsxOptions); unset: none. */
  readonly workbook?: {
    readonly file?: FileHandle;
    readonly dir: string;
    readonly spill: () => StringSpill;
  };
}
