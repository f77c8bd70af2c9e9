import { DEFAULT_MAX_RECORD_BYTES, FileFormatError } from '../records.ts';
import { locateParts } from '../workbook/book.ts';
import { prepareSheetScans } from '../workbook/scanSetup.ts';
import { DEFAULT_SHARED_STRINGS, SharedStrings, type StringSpill } from '../workbook/strings.ts';
import { parseXml, type XmlLimits } from '../workbook/xml.ts';
import { DEFAULT_PACKAGE_LIMITS, Package } from '../workbook/zip.ts';
import { type FileHead, HEAD_ROWS, type HeadCell, type HeadRow, isEmptyRow } from './fileHead.ts';

/** Worksheets looked at: a stock list is rarely past the fifth tab. */
export const HEAD_SHEETS = 8;

export interface WorkbookHeadOptions {
  readonly maxRows?: number;
  /** Shared strings past the memory bound go there; none: such a workbook is refused. */
  readonly spillStrings?: () => StringSpill;
  readonly maxRecordBytes?: number;
}

/**
 * The head of a workbook: the first rows of each of its first HEAD_SHEETS worksheets (in tab
 * order, with their names), read with the workbook reader's own parts (the package, the shared
 * strings, the date styles, the row scanner): numbers as numbers, text as text, dates as ISO
 * dates, each row under its own number. A worksheet is read only as far as its head. A file that
 * is not a readable workbook is a FileFormatError, as for the reader.
 */
export async function readWorkbookHead(
  path: string,
  options: WorkbookHeadOptions = {},
): Promise<FileHead> {
  const maxChars = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const limits: XmlLimits = { maxRunChars: maxChars, maxDepth: 64 };
  let pkg: Package | undefined;
  let strings: SharedStrings | undefined;
  try {
    pkg = await Package.open(path, DEFAULT_PACKAGE_LIMITS);
    const parts = await locateParts(pkg, limits);
    strings = new SharedStrings({
      ...DEFAULT_SHARED_STRINGS,
      ...(options.spillStrings === undefined ? {} : { spill: options.spillStrings }),
    });
    const newScanner = await prepareSheetScans(pkg, parts, strings, maxChars, limits);
    const tables = [];
    for (const sheet of parts.worksheets.slice(0, HEAD_SHEETS)) {
      const scanner = newScanner();
      const rows: HeadRow[] = [];
      let more = false;
      scan: for await (const _ of parseXml(
        await pkg.open(sheet.part),
        sheet.part,
        scanner,
        limits,
      )) {
        for (const row of scanner.rows.splice(0)) {
          const cells = Array.from(row.cells, (c) => c as HeadCell);
          if (isEmptyRow(cells)) continue;
          if (rows.length >= (options.maxRows ?? HEAD_ROWS)) {
            more = true;
            break scan;
          }
          rows.push({ line: row.number, cells });
        }
      }
      for (const row of scanner.rows.splice(0)) {
        const cells = Array.from(row.cells, (c) => c as HeadCell);
        if (!isEmptyRow(cells) && rows.length < (options.maxRows ?? HEAD_ROWS)) {
          rows.push({ line: row.number, cells });
        }
      }
      tables.push({ sheet: sheet.name, rows, more });
    }
    return {
      format: 'xlsx',
      tables,
      sheetsNotRead: Math.max(0, parts.worksheets.length - HEAD_SHEETS),
    };
  } catch (err) {
    if (err instanceof FileFormatError) {
      throw new FileFormatError(`not a readable .xlsx workbook: ${err.message}`, { cause: err });
    }
    throw err;
  } finally {
    strings?.discard();
    pkg?.close();
  }
}
