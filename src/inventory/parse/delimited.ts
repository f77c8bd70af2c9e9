import { pipeline, Readable } from 'node:stream';
import { CsvError, type Options as CsvOptions, parse } from 'csv-parse';
import type { ByteTap } from './byteTap.ts';
import { detectDelimiter, isBlankLine } from './dialect.ts';
import { DecodeStream, type EncodingChoice, type TextEncoding } from './encoding.ts';
import { headerColumns, isBlankRow, positionalColumns } from './header.ts';
import { readBatches, SMALL_BATCH } from './recordBatches.ts';
import {
  DEFAULT_MAX_RECORD_BYTES,
  FileFormatError,
  MAX_FIELDS,
  type RecordEvent,
  recordTooLong,
  showFields,
} from './records.ts';

/** How to read one delimited file; every field has the contract's default. */
export interface DelimitedOptions {
  /** `auto` (default): BOM, else UTF-8 when valid, else Windows-1252. */
  readonly encoding?: EncodingChoice;
  /** `auto` (default): detected from the header line; or one character. */
  readonly delimiter?: string;
  /**
   * The line holding the header (1 = the first); lines above it are skipped. 0: the file has no
   * header, its columns are named by position (`1`, `2`, …) and every line is data. Default 1.
   */
  readonly headerLine?: number;
  /**
   * The first line of data, when it is not the one after the header (a header over two lines,
   * notes under it): the lines between are skipped, as those above the header are. Unset: the
   * line after the header.
   */
  readonly dataLine?: number;
  /**
   * Largest record (and header line) in bytes of decoded text; a longer one makes the file
   * unreadable, naming its line, instead of filling memory. Default DEFAULT_MAX_RECORD_BYTES
   * (INBOX_MAX_RECORD_BYTES).
   */
  readonly maxRecordBytes?: number;
  /** Called once the header is found, with what the file is read as (for the report). */
  readonly onDialect?: (dialect: Dialect) => void;
  /**
   * The key each column's values go under in each record (by position; undefined: left out),
   * given the header's normalized names: a profile's column mapping, applied once to the header
   * instead of to every row. With it, a header may repeat a name (the mapping tells whether that
   * is a problem). The `columns` event still names the header's own columns.
   */
  readonly keyHeader?: (names: readonly string[]) => ReadonlyArray<string | undefined>;
}

export interface Dialect {
  readonly encoding: TextEncoding;
  readonly delimiter: string;
  /** The line the header was found on (headerLine, or a later one when that one is blank). */
  readonly headerLine: number;
}

/**
 * Reads delimited text (`.csv`, `.txt`, `.tsv`): decoded in the stream (see DecodeStream), the
 * header on `headerLine` or the first non-blank line after it, its delimiter detected unless
 * given, then RFC 4180 (quoted fields with delimiters, `""` and line breaks inside; CRLF or LF).
 * Blank rows are skipped; a row with more or fewer fields than the header is a row error; a
 * quoting error makes the file unreadable. `tap` sees the raw bytes (the content hash stays over
 * the file as it is); lines are lines of the file as it is, counted in the decoded text (line
 * feeds are kept one for one by every encoding, and a UTF-16 file's 0x0A bytes are not all line
 * feeds).
 */
export async function* readDelimited(
  source: Readable,
  tap: ByteTap,
  options: DelimitedOptions = {},
): AsyncGenerator<RecordEvent[]> {
  const positional = options.headerLine === 0;
  const headerLine = positional ? 1 : (options.headerLine ?? 1);
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const decoder = new DecodeStream(options.encoding ?? 'auto');
  const decoded = pipeline(source, tap, decoder, () => {});
  const chunks = decoded[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let finished = false;
  let headLineSeen = headerLine;
  try {
    const head = await findHeader(chunks, headerLine, maxRecordBytes);
    if (head === undefined) return; // nothing but blank lines: no header
    headLineSeen = head.line;
    const delimiter =
      options.delimiter === undefined || options.delimiter === 'auto'
        ? detectDelimiter(head.text)
        : options.delimiter;
    options.onDialect?.({
      encoding: decoder.encoding!,
      delimiter,
      headerLine: positional ? 0 : head.line,
    });

    // Records come as bare arrays: csv-parse's `info` builds three objects a record.
    const csvOptions: CsvOptions = {
      delimiter,
      bom: false,
      relax_column_count: true,
      skip_empty_lines: false,
      max_record_size: maxRecordBytes,
      // A record wider than any header may be is let go at once, not buffered with its fields.
      on_record: (record: string[]) =>
        record.length > MAX_FIELDS ? wideRecord(record, delimiter) : record,
    };
    const parser = parse(csvOptions);
    const fed = Readable.from(continueWith(head.rest, chunks), { objectMode: false });
    const out = pipeline(fed, parser, () => {});
    let header: string[] | undefined;
    let keys: ReadonlyArray<string | undefined> = [];
    const dataLine = options.dataLine ?? 0;
    // Every record ends with one line feed (LF or CRLF), blank lines are records too, and a
    // record spans more lines only by the line feeds inside its quoted fields.
    let nextLine = head.line;
    for await (const records of readBatches<string[]>(out, weight, SMALL_BATCH)) {
      const events: RecordEvent[] = [];
      for (const record of records) {
        const line = nextLine;
        if (isWide(record)) {
          nextLine += 1 + record.lineFeeds;
          if (header === undefined) {
            throw new FileFormatError(
              `the header has ${record.wide} columns, more than ${MAX_FIELDS}`,
            );
          }
          events.push({
            type: 'bad',
            line,
            field: '(row)',
            reason: `has ${record.wide} fields, the header has ${header.length}`,
            ...(record.shown === undefined ? {} : { value: record.shown }),
          });
          continue;
        }
        nextLine += 1 + lineFeedsIn(record);
        if (isBlankRow(record)) continue;
        // Lines between the header and dataLine are skipped (for a file without a header, all above it).
        if (line < dataLine && (header !== undefined || positional)) continue;
        if (header === undefined) {
          const keyed = options.keyHeader;
          header = positional
            ? positionalColumns(record.length)
            : headerColumns(record, keyed !== undefined);
          keys =
            keyed === undefined ? header.map((c) => (c === '' ? undefined : c)) : keyed(header);
          events.push({ type: 'columns', columns: header.filter((c) => c !== '') });
          if (!positional) continue;
        }
        if (record.length !== header.length) {
          events.push({
            type: 'bad',
            line,
            field: '(row)',
            reason: `has ${record.length} fields, the header has ${header.length}`,
            value: showFields(record, delimiter),
          });
          continue;
        }
        const fields: Record<string, unknown> = {};
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          if (key !== undefined) fields[key] = record[i];
        }
        events.push({ type: 'record', line, fields });
      }
      yield events;
    }
    finished = true;
  } catch (err) {
    if (err instanceof CsvError) {
      if (err.code === 'CSV_MAX_RECORD_SIZE') {
        throw recordTooLong(csvLine(err, headLineSeen), maxRecordBytes);
      }
      throw new FileFormatError(`not readable as delimited text: ${err.message}`, { cause: err });
    }
    throw err;
  } finally {
    if (!finished) decoded.destroy();
  }
}

interface Head {
  /** Physical line number of the header (1 = the file's first line). */
  readonly line: number;
  /** The header line's text (for delimiter detection). */
  readonly text: string;
  /** Decoded bytes from the start of the header line on, as read so far. */
  readonly rest: Buffer;
}

/**
 * Reads decoded chunks until the header line is whole: lines above `headerLine` are dropped as
 * they end, so only the line being read is held. Undefined when the text ends first with nothing
 * but blank lines from `headerLine` on.
 */
async function findHeader(
  chunks: AsyncIterator<Buffer>,
  headerLine: number,
  maxBytes: number,
): Promise<Head | undefined> {
  let buf: Buffer = Buffer.alloc(0);
  let line = 1;
  for (;;) {
    // Take every whole line in buf.
    for (let lf = buf.indexOf(10); lf !== -1; lf = buf.indexOf(10)) {
      if (lf > maxBytes) throw tooLong(line, headerLine, maxBytes);
      const text = buf.subarray(0, lf).toString('utf8');
      if (line >= headerLine && !isBlankLine(text)) return { line, text, rest: buf };
      buf = buf.subarray(lf + 1);
      line++;
    }
    if (buf.length > maxBytes) throw tooLong(line, headerLine, maxBytes);
    const next = await chunks.next();
    if (next.done) {
      const text = buf.toString('utf8');
      if (line >= headerLine && !isBlankLine(text)) return { line, text, rest: buf };
      const lines = buf.length > 0 ? line : line - 1;
      if (headerLine > 1 && lines < headerLine) {
        throw new FileFormatError(
          `the header is expected on line ${headerLine}, but the file has only ${lines} lines`,
        );
      }
      return undefined;
    }
    buf = buf.length === 0 ? next.value : Buffer.concat([buf, next.value]);
  }
}

function tooLong(line: number, headerLine: number, maxBytes: number): FileFormatError {
  const err = recordTooLong(line, maxBytes);
  if (line <= headerLine) err.message += ', looking for the header';
  return err;
}

/**
 * A record of more than MAX_FIELDS fields, as much of it as is kept: an empty array (what
 * csv-parse's on_record may give back) carrying the count, its line feeds and its start.
 */
type Wide = string[] & {
  readonly wide: number;
  readonly lineFeeds: number;
  readonly shown: string | undefined;
};

function wideRecord(record: readonly string[], delimiter: string): Wide {
  return Object.assign([] as string[], {
    wide: record.length,
    lineFeeds: lineFeedsIn(record),
    shown: showFields(record, delimiter),
  });
}

const isWide = (r: string[]): r is Wide => (r as Partial<Wide>).wide !== undefined;

/** A record's weight in a batch: its fields. */
const weight = (r: string[]) => Math.max(1, r.length);

/** Line feeds inside a record's fields (only a quoted field can hold one). */
export function lineFeedsIn(record: readonly string[]): number {
  let n = 0;
  for (const field of record) {
    for (let i = field.indexOf('\n'); i !== -1; i = field.indexOf('\n', i + 1)) n++;
  }
  return n;
}

/**
 * Bytes handed to the CSV parser at once: it turns a whole piece into records before any is
 * taken, and a 64 KiB chunk of short rows is 20,000 records alive at once.
 */
const FEED = 4096;

/** The bytes already read, then the rest of the chunks, in pieces of at most FEED bytes. */
async function* continueWith(first: Buffer, rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  for (let at = 0; at < first.length; at += FEED) yield first.subarray(at, at + FEED);
  for (;;) {
    const next = await rest.next();
    if (next.done) return;
    const chunk = next.value;
    for (let at = 0; at < chunk.length; at += FEED) yield chunk.subarray(at, at + FEED);
  }
}

/** The line (of the text csv-parse was fed, numbered from `first`) a CsvError happened on. */
function csvLine(err: CsvError, first: number): number {
  const lines = (err as CsvError & { lines?: unknown }).lines;
  return typeof lines === 'number' ? first + lines - 1 : first;
}
