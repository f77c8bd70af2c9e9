import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { type FileHandle, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { chunksOf } from '../../files/chunks.ts';
import type { ByteTap } from './byteTap.ts';
import { headerColumns, isBlankRow, positionalColumns } from './header.ts';
import { DEFAULT_MAX_RECORD_BYTES, FileFormatError, type RecordEvent } from './records.ts';
import { locateParts } from './workbook/book.ts';
import { prepareSheetScans } from './workbook/scanSetup.ts';
import type { SheetRow, SheetScanner } from './workbook/sheet.ts';
import {
  DEFAULT_SHARED_STRINGS,
  SharedStrings,
  type SharedStringsOptions,
  type StringSpill,
} from './workbook/strings.ts';
import { parseXml, type XmlLimits } from './workbook/xml.ts';
import { DEFAULT_PACKAGE_LIMITS, Package, type PackageLimits } from './workbook/zip.ts';

export type { StringSpill } from './workbook/strings.ts';

export interface XlsxOptions {
  /**
   * The row holding the header (1 = the first); rows above it are skipped. 0: the sheet has no
   * header, its columns are named by position (`1`, `2`, …). Default 1.
   */
  readonly headerLine?: number;
  /**
   * The first row of data, when it is not the one after the header (a header over two rows):
   * rows between are skipped. Row numbers here and in headerLine are the sheet's own (`r="5"`
   * is row 5 even when rows 1–3 are absent from the file).
   */
  readonly dataLine?: number;
  /** The worksheet: by name (any case) or 1-based position in the tab order; default the first. */
  readonly sheet?: string | number;
  /** Called once the header is found, with the row it was found on. */
  readonly onHeader?: (row: number) => void;
  /**
   * As DelimitedOptions.keyHeader: the key of each column in each record. Keys may run past the
   * header's last cell (a column reached by letter or position whose header cell is empty).
   */
  readonly keyHeader?: (names: readonly string[]) => ReadonlyArray<string | undefined>;
  /**
   * Folder for the reader's scratch files: the workbook as read (the zip is read through its
   * directory, at its end) and the shared strings past the memory bound. Default: the system's
   * temp folder.
   */
  readonly scratchDir?: string;
  /**
   * The file itself, open for reading: the zip is then read from it where it lies (no scratch
   * copy), and its bytes are fed to the tap through one reused buffer after the sheet is read;
   * `source` is not read. Without it, `source` is copied to the scratch folder first.
   */
  readonly file?: FileHandle;
  /** Makes the on-disk table of shared strings past the memory bound; none: such a workbook is refused. */
  readonly spillStrings?: () => StringSpill;
  /** Most characters of one cell or shared string, and of one row's values (INBOX_MAX_RECORD_BYTES). */
  readonly maxRecordBytes?: number;
  /** Bounds on the zip (tests lower them). */
  readonly packageLimits?: PackageLimits;
  /** How many shared strings stay in memory (tests lower it). */
  readonly sharedStrings?: Omit<SharedStringsOptions, 'spill'>;
}

/**
 * Records handed on at once: fewer than the other readers' BATCH, so that fewer rows outlive a
 * young-generation collection (the worksheet's XML makes much short-lived garbage).
 */
const EVENTS_AT_ONCE = 256;

/** Deepest XML nesting read (a worksheet needs six levels; rich text and extensions a few more). */
const MAX_XML_DEPTH = 64;

/**
 * Reads a worksheet of an `.xlsx` workbook (`sheet`, or the first tab in the workbook's order) as
 * a stream, in bounded memory whatever the workbook holds:
 *
 * - the bytes go through `tap` into a scratch copy (the content hash is over exactly the bytes
 *   read), which is then read as a zip through its central directory: parts in any order, found
 *   through their relationships as the Open Packaging Conventions say (locateParts);
 * - shared strings go into a table that keeps the first few in memory and the rest on disk
 *   (SharedStrings, spilled through `spillStrings`);
 * - the worksheet is parsed as it inflates (parseXml), row by row (SheetScanner): numbers as numbers
 *   (`7.0` is 7; a number stored as text stays text, which the quantity check reads), text as
 *   text, formulas by their cached value, booleans as booleans, dates as ISO text;
 * - no cell, string, tag, comment or row longer than `maxRecordBytes` characters, no nesting deeper than
 *   64, no part that inflates like a bomb (PackageLimits): each is a bad file with a reason.
 *
 * The header is the first non-blank row from `headerLine` on; rows above it are skipped; blank
 * rows are skipped; a row's position is its row number. Cells right of the header's last named
 * column are ignored. A file that is not a readable workbook makes a FileFormatError (`not a
 * readable .xlsx workbook: …`); I/O errors of `source` are thrown as they are.
 */
export async function* readXlsx(
  source: Readable,
  tap: ByteTap,
  options: XlsxOptions = {},
): AsyncGenerator<RecordEvent[]> {
  const file = options.file;
  let copy: string | undefined;
  let pkg: Package | undefined;
  let strings: SharedStrings | undefined;
  try {
    if (file === undefined) {
      const dir = options.scratchDir ?? tmpdir();
      await mkdir(dir, { recursive: true });
      copy = join(dir, `${process.pid}-${randomBytes(6).toString('hex')}.xlsx.part`);
      await pipeline(source, tap, createWriteStream(copy, { flags: 'wx', mode: 0o600 }));
    } else if ((await file.stat()).size === 0) {
      return;
    }
    const maxChars = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
    const limits: XmlLimits = { maxRunChars: maxChars, maxDepth: MAX_XML_DEPTH };
    pkg = await Package.open(copy ?? file!, options.packageLimits ?? DEFAULT_PACKAGE_LIMITS);
    const parts = await locateParts(pkg, limits, options.sheet);
    strings = new SharedStrings({
      ...(options.sharedStrings ?? DEFAULT_SHARED_STRINGS),
      ...(options.spillStrings === undefined ? {} : { spill: options.spillStrings }),
    });
    const scanner = (await prepareSheetScans(pkg, parts, strings, maxChars, limits))();
    const records = new SheetRecords(scanner, options);
    for await (const _ of parseXml(await pkg.open(parts.sheet), parts.sheet, scanner, limits)) {
      const events = records.take();
      if (events !== undefined) yield events;
    }
    const rest = records.take(true);
    if (rest !== undefined) yield rest;
  } catch (err) {
    if (err instanceof FileFormatError) {
      throw new FileFormatError(`not a readable .xlsx workbook: ${err.message}`, { cause: err });
    }
    throw err;
  } finally {
    strings?.discard();
    pkg?.close();
    if (copy !== undefined) await rm(copy, { force: true });
    // The file as it is now, whether it was read to its end or not: what was read, if unchanged.
    if (file !== undefined) for await (const chunk of chunksOf(file)) tap.update(chunk);
  }
}

/** Turns the scanner's rows into record events: the header first, then a record per row. */
class SheetRecords {
  readonly #scanner: SheetScanner;
  readonly #options: XlsxOptions;
  readonly #headerLine: number;
  #header: string[] | undefined;
  #keys: ReadonlyArray<string | undefined> = [];
  #events: RecordEvent[] = [];

  constructor(scanner: SheetScanner, options: XlsxOptions) {
    this.#scanner = scanner;
    this.#options = options;
    this.#headerLine = options.headerLine ?? 1;
  }

  /** The events of the rows scanned so far: once there are BATCH of them, or at the end (`all`). */
  take(all = false): RecordEvent[] | undefined {
    const rows = this.#scanner.rows;
    if (rows.length > 0) {
      this.#scanner.rows = [];
      for (const row of rows) this.#row(row);
    }
    if (this.#events.length === 0 || (!all && this.#events.length < EVENTS_AT_ONCE))
      return undefined;
    const events = this.#events;
    this.#events = [];
    return events;
  }

  #row(row: SheetRow): void {
    if (row.number < this.#headerLine) return;
    const cells = row.cells;
    // Rows between the header and dataLine are skipped (without a header, all above dataLine).
    if (
      row.number < (this.#options.dataLine ?? 0) &&
      (this.#header !== undefined || this.#headerLine === 0)
    ) {
      return;
    }
    if (this.#header === undefined) {
      if (isBlankRow(cells)) return;
      this.#setHeader(
        Array.from(cells, (v) => (v === undefined ? '' : v)),
        row,
      );
      if (this.#headerLine !== 0) return;
    }
    const keys = this.#keys;
    const fields: Record<string, unknown> = {};
    let blank = true;
    for (let i = 0; i < keys.length; i++) {
      const name = keys[i];
      if (name === undefined) continue;
      const value = cells[i] ?? '';
      fields[name] = value;
      if (blank && (typeof value !== 'string' || value.trim() !== '')) blank = false;
    }
    if (blank) return;
    this.#events.push({ type: 'record', line: row.number, fields });
  }

  #setHeader(cells: unknown[], row: SheetRow): void {
    const keyed = this.#options.keyHeader;
    const header =
      this.#headerLine === 0
        ? positionalColumns(cells.length)
        : headerColumns(trimEnd(cells.map((v) => String(v))), keyed !== undefined);
    this.#header = header;
    this.#keys =
      keyed === undefined ? header.map((c) => (c === '' ? undefined : c)) : keyed(header);
    this.#scanner.keepColumns = Math.max(header.length, this.#keys.length);
    this.#options.onHeader?.(row.number);
    this.#events.push({ type: 'columns', columns: header.filter((c) => c !== '') });
  }
}

/** Header cells without the empty ones at the end (a formatted but empty column is no column). */
function trimEnd(cells: string[]): string[] {
  let end = cells.length;
  while (end > 0 && cells[end - 1]!.trim() === '') end--;
  return cells.slice(0, end);
}
