import type { Readable } from 'node:stream';
import type { ByteTap } from './byteTap.ts';
import { readCsv } from './csv.ts';
import { readJsonArray } from './json.ts';
import { readJsonLines } from './jsonl.ts';
import type { InboxFormat, ReadOptions, RecordEvent } from './records.ts';
import { DEFAULT_MAX_RECORD_BYTES } from './records.ts';

export { ByteTap } from './byteTap.ts';
export { MAX_JSON_BYTES } from './json.ts';
export * from './records.ts';

/**
 * Reads the records of a file of the given format from a byte stream that goes through `tap`, in
 * batches (one await per batch, not per row). A record over `maxRecordBytes` makes the file
 * unreadable (FileFormatError naming its line) before more than that is held.
 */
export function readRecords(
  format: InboxFormat,
  source: Readable,
  tap: ByteTap,
  options: ReadOptions = {},
): AsyncGenerator<RecordEvent[]> {
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  switch (format) {
    case 'csv':
      return readCsv(source, tap, maxRecordBytes);
    case 'json':
      return readJsonArray(source, tap);
    case 'jsonl':
      return readJsonLines(source, tap, maxRecordBytes);
  }
}
