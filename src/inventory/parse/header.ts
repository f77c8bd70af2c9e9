import { normalizeColumn } from './columnName.ts';
import { FileFormatError, MAX_FIELDS, showValue } from './records.ts';

export { normalizeColumn } from './columnName.ts';

/**
 * The header row of a tabular file (delimited text, a worksheet): its cells as normalized column
 * names. A name given twice makes the file unreadable (which of the two would a value come from?)
 * — unless the row looks like data, when the file is told it has no header row (noHeaderReason).
 * Empty names stay in place, so that positions line up with the data rows; they name no column.
 * `repeats`: a name may be given more than once (a profile's mapping says which it reads).
 */
export function headerColumns(cells: readonly string[], repeats = false): string[] {
  checkWidth(cells.length);
  const names = cells.map(normalizeColumn);
  if (repeats) return names;
  const seen = new Set<string>();
  for (const c of names) {
    if (c !== '' && seen.has(c)) {
      if (looksLikeData(names)) throw new FileFormatError(noHeaderReason(names));
      throw new FileFormatError(`column "${showValue(c)}" appears twice in the header`);
    }
    seen.add(c);
  }
  return names;
}

/** The column names of a file without a header row: positions, `1` to `n` (a profile's `headerLine: 0`). */
export function positionalColumns(n: number): string[] {
  checkWidth(n);
  return Array.from({ length: n }, (_, i) => String(i + 1));
}

/** A header wider than MAX_FIELDS makes the file unreadable (every row would be that wide). */
function checkWidth(n: number): void {
  if (n > MAX_FIELDS) {
    throw new FileFormatError(`the header has ${n} columns, more than ${MAX_FIELDS}`);
  }
}

/** A number as a spreadsheet or ERP writes one: `12`, `-3`, `10.55`, `1,5`. */
const NUMBER = /^[-+]?\d+([.,]\d+)?$/;

/**
 * Whether a row taken for the header looks like a data row instead: some of its cells are
 * numbers, which column names hardly ever are.
 */
export function looksLikeData(cells: readonly unknown[]): boolean {
  return cells.some(
    (c) => typeof c === 'number' || (typeof c === 'string' && NUMBER.test(c.trim())),
  );
}

/** Why a file whose first row holds data cannot be read as it stands, and what reads it. */
export function noHeaderReason(cells: readonly unknown[]): string {
  const numbers = cells
    .filter((c) => typeof c === 'number' || (typeof c === 'string' && NUMBER.test(c.trim())))
    .slice(0, 3)
    .map((c) => `"${showValue(String(c).trim())}"`);
  return `no header row: the first row holds data (${numbers.join(', ')} are values, not column names); a file without a header is read with a profile giving headerLine 0 and its columns by position`;
}

/** A row with nothing in it but spaces: skipped, not counted. */
export function isBlankRow(cells: readonly unknown[]): boolean {
  for (const c of cells) {
    if (c === undefined || c === null) continue;
    if (typeof c !== 'string' || c.trim() !== '') return false;
  }
  return true;
}
