import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { ByteTap } from './byteTap.ts';
import { BATCH_BYTES, SMALL_BATCH } from './recordBatches.ts';
import {
  DEFAULT_MAX_RECORD_BYTES,
  objectRecord,
  type RecordEvent,
  recordTooLong,
  showValue,
} from './records.ts';

/**
 * Reads JSON Lines: one object per line, LF or CRLF, a BOM tolerated, blank lines skipped. A
 * line that is not a JSON object is a row error; lines are physical lines counted from 1.
 * Only LF ends a line (not a lone CR, U+2028 or U+2029 as readline would: JSON strings may hold
 * U+2028 and U+2029 unescaped, and JSON.stringify writes them so). A line over `maxLineBytes`
 * makes the file unreadable as soon as that much of it is read (recordTooLong).
 */
export async function* readJsonLines(
  source: Readable,
  tap: ByteTap,
  maxLineBytes = DEFAULT_MAX_RECORD_BYTES,
): AsyncGenerator<RecordEvent[]> {
  let line = 0;
  let events: RecordEvent[] = [];
  let chars = 0; // of the lines behind `events`
  // A line over the cap ends the file, after the rows read before it (rejected rows so far).
  let tooLong: unknown;
  const lines = untilError(
    splitLines(source.pipe(tap) as AsyncIterable<Buffer>, maxLineBytes),
    (err) => {
      tooLong = err;
    },
  );
  for await (const batch of lines) {
    for (let text of batch) {
      if (events.length >= SMALL_BATCH || chars >= BATCH_BYTES) {
        yield events;
        events = [];
        chars = 0;
      }
      line++;
      if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.trim() === '') continue;
      chars += text.length;
      let item: unknown;
      try {
        item = JSON.parse(text);
      } catch {
        events.push({
          type: 'bad',
          line,
          field: '(row)',
          reason: 'not valid JSON',
          value: showValue(text),
        });
        continue;
      }
      events.push(objectRecord(item, line, text));
    }
  }
  if (events.length > 0) yield events;
  if (tooLong !== undefined) throw tooLong;
}

/** The items of `items` until it throws; the error goes to `onError`. */
async function* untilError<T>(
  items: AsyncIterable<T>,
  onError: (err: unknown) => void,
): AsyncGenerator<T> {
  try {
    yield* items;
  } catch (err) {
    onError(err);
  }
}

/** Bytes split into lines at once. */
const SLICE = 4096;

/**
 * The lines of a UTF-8 byte stream, split at LF only, a CR before the LF dropped; the lines each
 * chunk ends, together. The pieces of a line are joined once, when it ends (a 32 MB line arriving
 * in 64 KiB chunks is not re-scanned or re-flattened per chunk). A line longer than `maxBytes`
 * (counted in UTF-8 bytes, its line feed not included) throws recordTooLong once the pieces held
 * pass the cap: at most about `maxBytes` plus one chunk is ever held.
 */
export async function* splitLines(
  input: AsyncIterable<Buffer>,
  maxBytes: number,
): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  const strip = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);
  let pieces: string[] = [];
  let held = 0; // UTF-8 bytes in pieces
  let lineNo = 0; // lines ended so far
  // Whether the line made of `pieces` and `tail` is over the cap (a CR before its LF not
  // counted). n UTF-16 units are n to 3n UTF-8 bytes: measured only when that may matter.
  const over = (tail: string) => {
    if (held + tail.length * 3 <= maxBytes) return false;
    const last = tail !== '' ? tail : (pieces.at(-1) ?? '');
    return held + Buffer.byteLength(tail) - (last.endsWith('\r') ? 1 : 0) > maxBytes;
  };
  for await (const whole of input) {
    // In slices: a 64 KiB chunk of short lines is 20,000 strings held across the reader's yields.
    for (let at = 0; at < whole.length; at += SLICE) {
      const text = decoder.write(whole.subarray(at, at + SLICE));
      const ended: string[] = [];
      let start = 0;
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', start)) {
        const piece = text.slice(start, at);
        lineNo++;
        if (over(piece)) {
          if (ended.length > 0) yield ended; // the lines before it are read (rows rejected so far)
          throw recordTooLong(lineNo, maxBytes);
        }
        pieces.push(piece);
        ended.push(strip(pieces.length === 1 ? pieces[0]! : pieces.join('')));
        pieces = [];
        held = 0;
        start = at + 1;
      }
      if (start < text.length) {
        const piece = text.slice(start);
        // One byte of slack: a CR at the end may be the one before the LF to come.
        if (over(piece) && held + Buffer.byteLength(piece) > maxBytes + 1) {
          if (ended.length > 0) yield ended;
          throw recordTooLong(lineNo + 1, maxBytes);
        }
        held += Buffer.byteLength(piece);
        pieces.push(piece);
      }
      if (ended.length > 0) yield ended;
    }
  }
  const last = decoder.end();
  if (over(last)) throw recordTooLong(lineNo + 1, maxBytes);
  const text = pieces.join('') + last;
  if (text !== '') yield [strip(text)];
}
