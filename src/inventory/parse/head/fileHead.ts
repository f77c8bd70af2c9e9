import type { TextEncoding } from '../encoding.ts';
import type { InboxFormat } from '../records.ts';

/**
 * The head of a file: its first rows as its reader sees them, before any profile says what they
 * mean — title rows, header rows and data alike, every cell in its place. What the profile
 * suggestion infers a profile from (src/inventory/suggest/); read by readFileHead.
 */

/** A cell as its reader gives it: text, a number or a boolean (a workbook's, JSON's), or nothing. */
export type HeadCell = string | number | boolean | undefined;

/** One row of a head: where it is (a line, a worksheet row or a JSON element, as reports count) and its cells. */
export interface HeadRow {
  readonly line: number;
  /** Cells by column (0 = the first, `A`); blank rows are not kept. */
  readonly cells: readonly HeadCell[];
}

/** The first rows of one table: a delimited file's lines, one worksheet, a JSON file's objects. */
export interface HeadTable {
  /** A worksheet's name, for a workbook. */
  readonly sheet?: string;
  readonly rows: readonly HeadRow[];
  /** The table goes on past the rows read. */
  readonly more: boolean;
  /**
   * Objects (JSON, JSON Lines): the keys of the objects, in the order first seen, name the
   * columns (normalized, as the reader gives them); there is no header row to find.
   */
  readonly keys?: readonly string[];
}

export interface FileHead {
  readonly format: InboxFormat;
  /** One table; a workbook's worksheets in tab order. */
  readonly tables: readonly HeadTable[];
  /** Delimited text: what it was decoded and split as. */
  readonly text?: {
    readonly encoding: TextEncoding;
    /** The delimiter the rows were split at: the one that splits most lines alike. */
    readonly delimiter: string;
    /** The head's physical lines (line 1 first), as decoded. */
    readonly lines: readonly string[];
  };
  /** A workbook's worksheets past those read (only the first few are looked at). */
  readonly sheetsNotRead?: number;
}

/** Most rows read of a table, blank ones not counted. */
export const HEAD_ROWS = 200;

/** A cell's text as a profile compares it: trimmed; numbers and booleans as written. */
export function cellText(cell: HeadCell): string {
  if (cell === undefined) return '';
  return typeof cell === 'string' ? cell.trim() : String(cell);
}

/** Whether a row holds nothing but empty cells. */
export function isEmptyRow(cells: readonly HeadCell[]): boolean {
  return cells.every((c) => cellText(c) === '');
}
