import { cellText, type HeadCell, type HeadRow, type HeadTable } from '../parse/head/fileHead.ts';
import { cellNumber } from './columnFacts.ts';

/**
 * Where a table's header is: after title rows, over one row or two, with notes under it or not —
 * or nowhere (the first row is data). Pure, over a head's rows.
 */
export interface TableLayout {
  /** The header row; undefined when the table has none (its rows are data from the first). */
  readonly header: HeadRow | undefined;
  /** Column names of a table of objects (JSON): its keys. */
  readonly keys?: readonly string[];
  /** Rows above the header (titles), left out by headerLine. */
  readonly above: readonly HeadRow[];
  /** Rows between the header and the data (a second header row, notes), left out by dataLine. */
  readonly between: readonly HeadRow[];
  readonly data: readonly HeadRow[];
  /**
   * The other row of a header over two rows (the one not taken as the header), its labels carried
   * right over the empty cells a merged cell leaves: they name columns for the suggestion, not
   * for the profile (only the header row names columns there).
   */
  readonly groups?: readonly string[];
}

/** Rows looked at for the header from the top. */
const HEADER_WITHIN = 30;
/** Rows between a header and its data at most. */
const MAX_BETWEEN = 3;

const filledCount = (row: HeadRow) => row.cells.filter((c) => cellText(c) !== '').length;

/** Cells that are words, not numbers, dates or flags. */
function textShare(row: HeadRow): number {
  const filled = row.cells.filter((c) => cellText(c) !== '');
  if (filled.length === 0) return 0;
  const words = filled.filter(
    (c) =>
      typeof c === 'string' &&
      cellNumber(c) === undefined &&
      !/^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}/.test(c.trim()),
  );
  return words.length / filled.length;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)]!;
}

/** Whether a row can name the columns: as wide as half a typical row, words (a name may repeat: months). */
function namesColumns(row: HeadRow, typical: number): boolean {
  const filled = filledCount(row);
  if (filled < Math.max(typical <= 1 ? 1 : 2, Math.ceil(typical * 0.5))) return false;
  return textShare(row) >= 0.75;
}

/** A cell that holds an amount: a number, not a code written in digits (`0032`, a barcode). */
function isAmount(cell: HeadCell): boolean {
  const text = cellText(cell);
  return cellNumber(cell) !== undefined && !/^0\d/.test(text) && !/^\d{8,}$/.test(text);
}

/** Columns that hold amounts in most of `rows`. */
function numericColumns(rows: readonly HeadRow[]): number[] {
  const width = Math.max(0, ...rows.map((r) => r.cells.length));
  const out: number[] = [];
  for (let c = 0; c < width; c++) {
    const filled = rows.filter((r) => cellText(r.cells[c]) !== '');
    const numbers = filled.filter((r) => isAmount(r.cells[c])).length;
    if (filled.length > 0 && numbers >= filled.length * 0.8) out.push(c);
  }
  return out;
}

/**
 * Whether `row` is a second header row over the rows under it: it names each column that holds
 * numbers below with a word (not an empty cell, not a number), and none of its cells comes again
 * in its column below (a data row's codes and names do).
 */
function contrasts(row: HeadRow, below: readonly HeadRow[]): boolean {
  const sample = below.slice(0, 50);
  const numeric = numericColumns(sample);
  if (numeric.length === 0) return false;
  const named = numeric.every(
    (c) => cellText(row.cells[c]) !== '' && cellNumber(row.cells[c]) === undefined,
  );
  const recurs = row.cells.some((cell, c) => {
    const text = cellText(cell);
    return text !== '' && sample.some((r) => cellText(r.cells[c]) === text);
  });
  return named && !recurs;
}

/**
 * Whether the row right above a header labels groups of its columns (merged cells over them):
 * words, and more than a title's one cell in column A.
 */
function labelsGroups(row: HeadRow, header: HeadRow): boolean {
  if (row.line !== header.line - 1 || textShare(row) < 0.75) return false;
  const at = row.cells.findIndex((c) => cellText(c) !== '');
  return filledCount(row) >= 2 || at > 0;
}

const isNote = (row: HeadRow) =>
  filledCount(row) <= 1 || row.cells.every((c) => /^[-=_*.~\s]*$/.test(cellText(c)));

/** The layout of a table: its header, what is above and under it, its data rows. */
export function findLayout(table: HeadTable): TableLayout {
  const rows = table.rows;
  if (table.keys !== undefined) {
    return { header: undefined, keys: table.keys, above: [], between: [], data: rows };
  }
  const typical = median(rows.map(filledCount));
  const top = rows.slice(0, HEADER_WITHIN);
  let at = top.findIndex((r) => namesColumns(r, typical));
  if (at === -1) return { header: undefined, above: [], between: [], data: rows };
  let groupsRow: HeadRow | undefined;
  let between: HeadRow[] = [];
  const next = rows[at + 1];
  if (next !== undefined && namesColumns(next, typical) && contrasts(next, rows.slice(at + 2))) {
    // A header over two rows: the header is the row that names more of the columns holding
    // numbers (the quantities), then more columns; the lower one on a tie.
    const numeric = numericColumns(rows.slice(at + 2, at + 52));
    const weight = (r: HeadRow) => [
      numeric.filter((c) => cellText(r.cells[c]) !== '').length,
      filledCount(r),
    ];
    const [upperNumeric, upperFilled] = weight(rows[at]!);
    const [lowerNumeric, lowerFilled] = weight(next);
    if (
      upperNumeric! > lowerNumeric! ||
      (upperNumeric === lowerNumeric && upperFilled! > lowerFilled!)
    ) {
      groupsRow = next;
      between = [next];
    } else {
      groupsRow = rows[at]!;
      at += 1;
    }
  } else if (at > 0 && labelsGroups(rows[at - 1]!, rows[at]!)) {
    // A sparse row right above (merged group labels) names groups of columns.
    groupsRow = rows[at - 1];
  }
  const header = rows[at]!;
  let first = at + 1 + between.length;
  while (first < rows.length && between.length < MAX_BETWEEN && isNote(rows[first]!)) {
    between.push(rows[first]!);
    first++;
  }
  return {
    header,
    above: rows.slice(0, at),
    between,
    data: rows.slice(first),
    ...(groupsRow === undefined ? {} : { groups: carriedRight(groupsRow, header.cells.length) }),
  };
}

/** A row's labels, each carried right over the empty cells after it (a merged cell's span). */
function carriedRight(row: HeadRow, width: number): string[] {
  const out: string[] = [];
  let last = '';
  for (let c = 0; c < Math.max(width, row.cells.length); c++) {
    const text = cellText(row.cells[c]);
    if (text !== '') last = text;
    out.push(last);
  }
  return out;
}
