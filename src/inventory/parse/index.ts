import type { Readable } from 'node:stream';
import type { ByteTap } from './byteTap.ts';
import { type DelimitedOptions, readDelimited } from './delimited.ts';
import { readJsonArray } from './json.ts';
import { readJsonLines } from './jsonl.ts';
import { DEFAULT_MAX_RECORD_BYTES, type InboxFormat, type RecordEvent } from './records.ts';
import type { readXlsx, XlsxOptions } from './xlsx.ts';

export { ByteTap } from './byteTap.ts';
export type { Dialect } from './delimited.ts';
export * from './records.ts';
export type { StringSpill } from './xlsx.ts';

/** How to read a file: the options of the delimited and workbook readers (a profile's choice). */
export interface ReaderOptions {
  readonly delimited?: DelimitedOptions;
  readonly xlsx?: XlsxOptions;
  /** Largest record in bytes (INBOX_MAX_RECORD_BYTES; DEFAULT_MAX_RECORD_BYTES when unset). */
  readonly maxRecordBytes?: number;
}

/**
 * Reads the records of a file of the given format from a byte stream that goes through `tap`, in
 * batches (one await per batch, not per row). Delimited text of every dialect and encoding goes
 * through readDelimited (encoding and delimiter detected unless the options say), workbooks
 * through readXlsx. A record of delimited text, JSON Lines or a JSON array over `maxRecordBytes` makes the file
 * unreadable (FileFormatError naming its line) before more than that is held.
 */
export function readRecords(
  format: InboxFormat,
  source: Readable,
  tap: ByteTap,
  options: ReaderOptions = {},
): AsyncGenerator<RecordEvent[]> {
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  switch (format) {
    case 'csv':
      return readDelimited(source, tap, { ...options.delimited, maxRecordBytes });
    case 'xlsx':
      return readXlsxWhenAsked(source, tap, { maxRecordBytes, ...options.xlsx });
    case 'json':
      return readJsonArray(source, tap, maxRecordBytes);
    case 'jsonl':
      return readJsonLines(source, tap, maxRecordBytes);
  }
}

/**
 * The workbook reader (unzip, XML), loaded at the first workbook: a daemon fed text files never
 * holds its modules (density, docs/benchmarks.md).
 */
async function* readXlsxWhenAsked(
  ...args: Parameters<typeof readXlsx>
): AsyncGenerator<RecordEvent[]> {
  const reader = await import('./xlsx.ts');
  yield* reader.readXlsx(...args);
}
