import { FileFormatError, showValue } from './records.ts';

/** A column name as compared: trimmed, lower case. */
export function normalizeColumn(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * The header row of a tabular file (delimited text, a worksheet): its cells as normalized column
 * names. A name given twice makes the file unreadable (which of the two would a value come from?).
 * Empty names stay in place, so that positions line up with the data rows; they name no column.
 */
export function headerColumns(cells: readonly string[]): string[] {
  const names = cells.map(normalizeColumn);
  const seen = new Set<string>();
  for (const c of names) {
    if (c !== '' && seen.has(c))
      throw new FileFormatError(`column "${showValue(c)}" appears twice in the header`);
    seen.add(c);
  }
  return names;
}

/** A row with nothing in it but spaces: skipped, not counted. */
export function isBlankRow(cells: readonly unknown[]): boolean {
  for (const c of cells) {
    if (c === undefined || c === null) continue;
    if (typeof c !== 'string' || c.trim() !== '') return false;
  }
  return true;
}
