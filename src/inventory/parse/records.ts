import { CodedError } from '../../failures/codedError.ts';
import { normalizeColumn } from './columnName.ts';

/** What a parser yields, in file order. */
export type RecordEvent =
  /** The normalized column names of a CSV header (first event of a CSV file). */
  | { readonly type: 'columns'; readonly columns: readonly string[] }
  /** A data row: fields keyed by normalized column name. */
  | { readonly type: 'record'; readonly line: number; readonly fields: Record<string, unknown> }
  /** A row that could not be read as a row (a bad JSON line, a CSV row of the wrong width). */
  | {
      readonly type: 'bad';
      readonly line: number;
      readonly field: string;
      readonly reason: string;
      readonly value?: string;
    };

/**
 * The format of an inbox file: `csv` is delimited text of any dialect and encoding (`.csv`,
 * `.txt`, `.tsv`), `xlsx` the first worksheet of a workbook.
 */
export type InboxFormat = 'csv' | 'xlsx' | 'json' | 'jsonl';

/**
 * How row positions are counted in a report: physical lines of the file as it is, elements of a
 * JSON array, or worksheet rows.
 */
export type PositionUnit = 'line' | 'element' | 'row';

/** The extensions formatOf knows, for messages. */
export const SUPPORTED_EXTENSIONS = '.csv, .txt, .tsv, .xlsx, .json, .jsonl or .ndjson';

/** The whole file cannot be read as its format; it goes to failed/. */
export class FileFormatError extends CodedError {
  readonly code = 'E_FILE_FORMAT';
}

const MAX_VALUE_IN_REPORT = 100;

/**
 * A value as it may appear in a report: text, cut to 100 characters. The cut is a copy: a slice
 * of a string keeps the whole string alive in V8, so a kept rejected row would otherwise hold
 * its 1 MiB line (a thousand such rows, a gigabyte).
 */
export function showValue(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text.length <= MAX_VALUE_IN_REPORT) return text;
  const cut = Buffer.from(text.slice(0, MAX_VALUE_IN_REPORT), 'utf16le').toString('utf16le');
  return `${cut}…`;
}

/** Fields joined by `delimiter` as showValue shows them, without joining more than it shows. */
export function showFields(fields: readonly string[], delimiter: string): string | undefined {
  let text = '';
  for (let i = 0; i < fields.length && text.length <= MAX_VALUE_IN_REPORT; i++) {
    text += (i === 0 ? '' : delimiter) + fields[i]!.slice(0, MAX_VALUE_IN_REPORT + 1);
  }
  return showValue(text);
}

/** Default largest record (a JSON Lines line, a CSV row) in bytes: INBOX_MAX_RECORD_BYTES. */
export const DEFAULT_MAX_RECORD_BYTES = 1024 * 1024;

/** The file holds a record over the cap: it is unreadable, and the reason names where. */
export function recordTooLong(line: number, maxBytes: number): FileFormatError {
  return new FileFormatError(
    `line ${line}: a record longer than ${maxBytes} bytes (the INBOX_MAX_RECORD_BYTES limit)`,
  );
}

/**
 * The format an inbox file name says, by extension in any case (product contract, "Inbox
 * files"): `.csv` `.txt` `.tsv` delimited text, `.xlsx`, `.json`, `.jsonl` `.ndjson`; undefined
 * for any other.
 */
export function formatOf(name: string): InboxFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.csv') || lower.endsWith('.txt') || lower.endsWith('.tsv')) return 'csv';
  if (lower.endsWith('.xlsx')) return 'xlsx';
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  return undefined;
}

export function positionUnit(format: InboxFormat): PositionUnit {
  return format === 'json' ? 'element' : format === 'xlsx' ? 'row' : 'line';
}

/**
 * Most fields of one record (or columns of a header): a worksheet's own bound (A to XFD). A wider
 * header makes the file unreadable; a wider JSON object is a bad row.
 */
export const MAX_FIELDS = 16_384;

/** A parsed JSON value as a record: an object of at most MAX_FIELDS keys, else a bad row. */
export function objectRecord(item: unknown, line: number, text?: string): RecordEvent {
  const value = text === undefined ? {} : { value: showValue(text) };
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    return { type: 'bad', line, field: '(row)', reason: 'not a JSON object', ...value };
  }
  let n = 0;
  for (const _ in item) {
    if (++n > MAX_FIELDS) {
      return {
        type: 'bad',
        line,
        field: '(row)',
        reason: `has more than ${MAX_FIELDS} fields`,
        ...value,
      };
    }
  }
  return { type: 'record', line, fields: lowerKeys(item as Record<string, unknown>) };
}

/** The object with its keys normalized (trimmed, case-folded); the last of equal keys wins. */
export function lowerKeys(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[normalizeColumn(k)] = v;
  return out;
}
