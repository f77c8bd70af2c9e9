import { DEFAULT_MAX_RECORD_BYTES, FileFormatError } from '../records.ts';
import { locateParts, MAX_LISTED, readPart, readRelationships } from '../workbook/book.ts';
import { isType, PACKAGE_RELS, relationshipIdOf, relsPartOf } from '../workbook/opc.ts';
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
    const sheets = await listWorksheets(pkg, limits);
    strings = new SharedStrings({
      ...DEFAULT_SHARED_STRINGS,
      ...(options.spillStrings === undefined ? {} : { spill: options.spillStrings }),
    });
    const newScanner = await prepareSheetScans(pkg, parts, strings, maxChars, limits);
    const tables = [];
    for (const sheet of sheets.slice(0, HEAD_SHEETS)) {
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
      sheetsNotRead: Math.max(0, sheets.length - HEAD_SHEETS),
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

/**
 * The worksheets of a workbook in tab order, each with its name and part: the workbook part is
 * the package's office document (or `/xl/workbook.xml`), its `<sheet>` elements give the order
 * and names, its relationships the parts; chart and dialog sheets are left out.
 */
async function listWorksheets(
  pkg: Package,
  limits: XmlLimits,
): Promise<Array<{ name: string; part: string }>> {
  const office = pkg.has(PACKAGE_RELS)
    ? (await readRelationships(pkg, PACKAGE_RELS, '/', limits)).find(
        (r) => isType(r.type, 'officeDocument') && r.target !== undefined && pkg.has(r.target),
      )?.target
    : undefined;
  const book = office ?? '/xl/workbook.xml';
  const rels = pkg.has(relsPartOf(book))
    ? await readRelationships(pkg, relsPartOf(book), book, limits)
    : [];
  const listed: Array<{ id: string; name: string }> = [];
  await readPart(
    pkg,
    book,
    {
      open(name, a) {
        if (name !== 'sheet' || listed.length >= MAX_LISTED) return;
        const id = relationshipIdOf(a);
        if (id !== undefined) listed.push({ id, name: a.name ?? '' });
      },
      text() {},
      close() {},
    },
    limits,
  );
  const out: Array<{ name: string; part: string }> = [];
  for (const s of listed) {
    const rel = rels.find((r) => r.id === s.id);
    if (rel?.target !== undefined && isType(rel.type, 'worksheet') && pkg.has(rel.target)) {
      out.push({ name: s.name, part: rel.target });
    }
  }
  return out;
}
