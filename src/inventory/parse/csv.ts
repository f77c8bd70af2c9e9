import { pipeline, type Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { normalizeColumn } from '../validate/kinds.ts';
import { showValue } from '../validate/rows.ts';
import { readBatches } from './batches.ts';
import type { ByteTap } from './byteTap.ts';
import {
  DEFAULT_MAX_RECORD_BYTES,
  FileFormatError,
  type RecordEvent,
  recordTooLong,
} from './records.ts';

interface CsvItem {
  readonly record: string[];
  readonly info: { readonly bytes: number };
}

/**
 * Reads CSV (RFC 4180: quoted fields with commas, quotes and line breaks inside; CRLF or LF; a
 * UTF-8 BOM tolerated). The first non-blank row is the header. Blank rows (no characters, or
 * only commas and spaces) are skipped. A row with more or fewer fields than the header is a row
 * error. A quoting error makes the whole file unreadable. Lines are physical lines of the file
 * where the row starts, counted from the byte offsets csv-parse reports. A record (its fields
 * together) over `maxRecordBytes` makes the file unreadable once that much of it is held; the
 * reason names the line where it passed the cap.
 */
export async function* readCsv(
  source: Readable,
  tap: ByteTap,
  maxRecordBytes = DEFAULT_MAX_RECORD_BYTES,
): AsyncGenerator<RecordEvent[]> {
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: false,
    info: true,
    max_record_size: maxRecordBytes,
  });
  const out = pipeline(source, tap, parser, () => {});
  let header: string[] | undefined;
  let prevEnd = 0;
  try {
    for await (const items of readBatches<CsvItem>(out)) {
      const events: RecordEvent[] = [];
      for (const item of items) {
        const line = tap.lineFeedsBefore(prevEnd) + 1;
        prevEnd = item.info.bytes;
        const record = item.record;
        if (isBlank(record)) continue;
        if (header === undefined) {
          const names = record.map(normalizeColumn);
          header = names;
          const seen = new Set<string>();
          for (const c of names) {
            if (c !== '' && seen.has(c))
              throw new FileFormatError(`column "${showValue(c)}" appears twice in the header`);
            seen.add(c);
          }
          events.push({ type: 'columns', columns: names.filter((c) => c !== '') });
          continue;
        }
        const cols: string[] = header;
        if (record.length !== cols.length) {
          events.push({
            type: 'bad',
            line,
            field: '(row)',
            reason: `has ${record.length} fields, the header has ${cols.length}`,
            value: showValue(record.join(',')),
          } as RecordEvent);
          continue;
        }
        const fields: Record<string, unknown> = {};
        for (let i = 0; i < cols.length; i++) fields[cols[i]!] = record[i];
        events.push({ type: 'record', line, fields });
      }
      yield events;
    }
  } catch (err) {
    if (err instanceof FileFormatError) throw err;
    if (err instanceof CsvError) {
      if (err.code === 'CSV_MAX_RECORD_SIZE') throw recordTooLong(csvLine(err, 1), maxRecordBytes);
      throw new FileFormatError(`not readable as CSV: ${err.message}`, { cause: err });
    }
    throw err;
  }
}

function isBlank(record: readonly string[]): boolean {
  for (const f of record) if (f.trim() !== '') return false;
  return true;
}

/** The line (of the text csv-parse was fed, numbered from `first`) a CsvError happened on. */
export function csvLine(err: CsvError, first: number): number {
  const lines = (err as CsvError & { lines?: unknown }).lines;
  return typeof lines === 'number' ? first + lines - 1 : first;
}
