import type { BookParts } from './book.ts';
import { readSharedStrings } from './sharedStrings.ts';
import { SheetScanner } from './sheet.ts';
import type { SharedStrings } from './strings.ts';
import { readCellStyles } from './styles.ts';
import type { XmlLimits } from './xml.ts';
import type { Package } from './zip.ts';

/**
 * What every worksheet of a workbook is read with: its shared strings (into `strings`) and its
 * cell styles (dates, zero padding), read once; then a new row scanner per worksheet. The reader
 * (xlsx.ts) and the head of a workbook (head/workbookHead.ts) set up the same way.
 */
export async function prepareSheetScans(
  pkg: Package,
  parts: Pick<BookParts, 'sharedStrings' | 'styles' | 'date1904'>,
  strings: SharedStrings,
  maxChars: number,
  limits: XmlLimits,
): Promise<() => SheetScanner> {
  if (parts.sharedStrings !== undefined) {
    await readSharedStrings(pkg, parts.sharedStrings, strings, maxChars, limits);
  }
  const styles =
    parts.styles === undefined
      ? { dates: new Set<number>(), padded: new Map<number, number>() }
      : await readCellStyles(pkg, parts.styles, limits);
  return () =>
    new SheetScanner({
      strings,
      dateStyles: styles.dates,
      paddedStyles: styles.padded,
      date1904: parts.date1904,
      maxCellChars: maxChars,
      maxRowChars: maxChars,
    });
}
