import { pipeline, type Readable } from 'node:stream';
import type { ByteTap } from './byteTap.ts';
import { headerColumns, isBlankRow } from './header.ts';
import { BATCH } from './recordBatches.ts';
import { FileFormatError, type RecordEvent } from './records.ts';

export interface XlsxOptions {
  /** The row holding the header (1 = the first); rows above it are skipped. Default 1. */
  readonly headerLine?: number;
  /** Called once the header is found, with the row it was found on. */
  readonly onHeader?: (row: number) => void;
  /** As DelimitedOptions.renameColumn: the key of a column in each record, undefined: left out. */
  readonly renameColumn?: (column: string) => string | undefined;
}

/** What exceljs's streaming reader hands over, as far as this reader uses it. */
interface SheetRow {
  readonly number: number;
  /** Cell values by column number (1 = A); a sparse array. */
  readonly values: readonly unknown[];
}
interface SheetReader extends AsyncIterable<SheetRow> {
  readonly name: string;
}
interface BookReader extends AsyncIterable<SheetReader> {
  model?: { sheets?: ReadonlyArray<{ readonly name: string; readonly rId: string }> };
  workbookRels?: ReadonlyArray<{ readonly Id: string; readonly Target: string }>;
  properties?: unknown;
}

/**
 * Reads the first worksheet of an `.xlsx` workbook (the first tab in the workbook's order) as a
 * stream with exceljs's streaming reader: shared and inline strings, numbers as numbers (`7.0` is
 * 7; a number stored as text stays text, which the quantity check reads), formulas by their cached
 * value, booleans as booleans, dates as ISO text (`2024-05-01`, with the time when it has one).
 * The header is the first non-blank row from `headerLine` on; rows above it are skipped; blank
 * rows are skipped; a row's position is its row number. Cells right of the header's last named
 * column are ignored. A file that is not a readable workbook (not a zip, truncated, no worksheet)
 * makes a FileFormatError; I/O errors of `source` are thrown as they are.
 *
 * Memory: a worksheet is parsed as it streams; exceljs keeps the shared-strings table (every
 * distinct text of the workbook) in memory, and writes a worksheet that comes before the shared
 * strings in the zip to a temporary file first (Excel stores them so), then reads it back.
 */
export async function* readXlsx(
  source: Readable,
  tap: ByteTap,
  options: XlsxOptions = {},
): AsyncGenerator<RecordEvent[]> {
  const headerLine = options.headerLine ?? 1;
  // Loaded on the first workbook, not with every command: exceljs takes a few hundred ms to load,
  // which `status` or `health` should not pay.
  const { default: ExcelJS } = await import('exceljs');
  let sourceError: unknown;
  source.once('error', (err) => {
    sourceError = err;
  });
  const input = pipeline(source, tap, () => {});
  // exceljs pipes its input into the unzipper with `pipe`, which passes no error on: a read error
  // would leave it waiting for bytes for ever. Every wait on it ends when the input fails instead.
  const failed = new FailureGate();
  input.once('error', (err) => failed.fail(err));
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache', // to tell dates from numbers
    hyperlinks: 'ignore',
    entries: 'ignore',
  }) as unknown as BookReader;
  // Known gaps of exceljs 4.4's streaming reader, closed here: it reads `model.sheets` and
  // `properties.model` of the workbook part, which some writers store after the worksheets; when
  // it is not there yet those would be undefined and throw. With these placeholders the sheet is
  // read all the same (its tab order then unknown: see firstWorksheet).
  const orderUnknown = { sheets: [] };
  reader.model = orderUnknown;
  reader.properties = {};

  let found = false;
  try {
    for await (const sheet of guarded(reader, failed)) {
      const rows = guarded(sheet, failed);
      if (found || !isFirstWorksheet(reader, orderUnknown, sheet)) {
        // Read through (and discard) the other sheets: exceljs reads the zip in one pass, and
        // the whole file must go through the tap for its content hash.
        for await (const _row of rows);
        continue;
      }
      found = true;
      yield* readSheet(rows, headerLine, options);
    }
  } catch (err) {
    if (sourceError !== undefined) throw sourceError;
    if (err instanceof FileFormatError) throw err;
    throw new FileFormatError(`not a readable .xlsx workbook: ${(err as Error).message}`, {
      cause: err,
    });
  } finally {
    input.destroy();
  }
  if (sourceError !== undefined) throw sourceError;
  if (!found) throw new FileFormatError('not a readable .xlsx workbook: it holds no worksheet');
}

/**
 * Whether `sheet` is the workbook's first worksheet: the first entry of the workbook's sheet list
 * that is a worksheet (a chart sheet may come first). When exceljs met the sheet before the
 * workbook part, the order is unknown and the first sheet met is taken.
 */
function isFirstWorksheet(reader: BookReader, orderUnknown: object, sheet: SheetReader): boolean {
  if (reader.model === orderUnknown) return true;
  const rels = new Map((reader.workbookRels ?? []).map((r) => [r.Id, r.Target]));
  const first = (reader.model?.sheets ?? []).find((s) =>
    /(^|\/)worksheets\//.test(rels.get(s.rId) ?? ''),
  );
  return first === undefined || first.name === sheet.name;
}

/**
 * Waits that end at once when the input fails. Each wait is one short-lived promise: racing every
 * wait against one promise that never settles would keep a reaction per wait on it — a closure
 * per row, a million for a million rows, never freed.
 */
class FailureGate {
  #failed = false;
  #error: unknown;
  readonly #waiting = new Set<(err: unknown) => void>();

  fail(err: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#error = err;
    for (const reject of this.#waiting) reject(err);
    this.#waiting.clear();
  }

  wait<T>(pending: Promise<T>): Promise<T> {
    if (this.#failed) {
      pending.catch(() => {});
      return Promise.reject(this.#error);
    }
    return new Promise<T>((resolve, reject) => {
      this.#waiting.add(reject);
      pending.then(
        (value) => {
          this.#waiting.delete(reject);
          resolve(value);
        },
        (err: unknown) => {
          this.#waiting.delete(reject);
          reject(err);
        },
      );
    });
  }
}

/** The items of `source`, each wait ended early when the input fails. */
async function* guarded<T>(source: AsyncIterable<T>, failed: FailureGate): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  for (;;) {
    const next = await failed.wait(it.next());
    if (next.done) return;
    yield next.value;
  }
}

async function* readSheet(
  sheet: AsyncIterable<SheetRow>,
  headerLine: number,
  options: XlsxOptions,
): AsyncGenerator<RecordEvent[]> {
  let header: string[] | undefined;
  let keys: Array<string | undefined> = [];
  let events: RecordEvent[] = [];
  for await (const row of sheet) {
    if (row.number < headerLine) continue;
    if (header === undefined) {
      const cells = Array.from(row.values, (v) => {
        const value = cellValue(v);
        return value === undefined ? '' : String(value);
      }).slice(1);
      if (isBlankRow(cells)) continue;
      header = headerColumns(trimEnd(cells));
      const rename = options.renameColumn;
      keys = header.map((c) => (c === '' || rename === undefined ? c : rename(c)));
      options.onHeader?.(row.number);
      events.push({ type: 'columns', columns: header.filter((c) => c !== '') });
      continue;
    }
    const fields: Record<string, unknown> = {};
    const values: unknown[] = [];
    for (let i = 0; i < header.length; i++) {
      const name = keys[i];
      if (name === undefined || name === '') continue;
      const value = cellValue(row.values[i + 1]) ?? '';
      fields[name] = value;
      values.push(value);
    }
    if (isBlankRow(values)) continue;
    events.push({ type: 'record', line: row.number, fields });
    if (events.length >= BATCH) {
      yield events;
      events = [];
    }
  }
  if (events.length > 0) yield events;
}

/** Header cells without the empty ones at the end (a formatted but empty column is no column). */
function trimEnd(cells: string[]): string[] {
  let end = cells.length;
  while (end > 0 && cells[end - 1]!.trim() === '') end--;
  return cells.slice(0, end);
}

/** A cell's value as a row field: text, number or boolean; undefined for an empty cell. */
export function cellValue(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isNaN(value) ? undefined : value;
  if (value instanceof Date) return isoDate(value);
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (Array.isArray(v.richText)) {
      return (v.richText as Array<{ text?: unknown }>).map((r) => String(r.text ?? '')).join('');
    }
    if ('formula' in v || 'sharedFormula' in v) {
      // The cached value; a formula never calculated (no cached value, or an error) shows as its
      // text, so that a report says what the cell holds.
      const result = cellValue(v.result);
      return result ?? `=${String(v.formula ?? v.sharedFormula ?? '')}`;
    }
    if ('error' in v) return String(v.error);
    if ('text' in v) return cellValue(v.text); // a hyperlink's text
  }
  return String(value);
}

/** A date cell: `YYYY-MM-DD`, or the full ISO time when it has a time of day. */
function isoDate(date: Date): string {
  if (Number.isNaN(date.getTime())) return '';
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}
