import { CodedError } from '../../failures/codedError.ts';

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

/** A value as it may appear in a report: text, cut to 100 characters. */
export function showValue(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_VALUE_IN_REPORT ? `${text.slice(0, MAX_VALUE_IN_REPORT)}…` : text;
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

/** The object with its keys normalized (trimmed, lower-cased); the last of equal keys wins. */
export function lowerKeys(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k.trim().toLowerCase()] = v;
  return out;
}
