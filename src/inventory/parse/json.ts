import type { Readable } from 'node:stream';
import type { ByteTap } from './byteTap.ts';
import { BATCH_BYTES, SMALL_BATCH } from './recordBatches.ts';
import {
  DEFAULT_MAX_RECORD_BYTES,
  FileFormatError,
  objectRecord,
  type RecordEvent,
} from './records.ts';

const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Bytes scanned between looks at the batch: small elements make many events. */
const SLICE = 4096;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * Reads a JSON array of objects as it streams, one element at a time: the top level is scanned
 * byte by byte (`[`, elements, commas, `]`; structural characters are ASCII, which no byte of a
 * multi-byte UTF-8 character is), each element's bytes are gathered and parsed alone with
 * JSON.parse. So only one element is ever held whole: an element longer than `maxElementBytes`
 * (INBOX_MAX_RECORD_BYTES) makes the file unreadable once that much of it is read, after the
 * elements before it are handed on (as a JSON Lines line over the cap). Positions are elements of
 * the array, counted from 1. An element that is not an object is a row error; anything but an
 * array, or an element that is not JSON, makes the file unreadable. A BOM is tolerated.
 */
export async function* readJsonArray(
  source: Readable,
  tap: ByteTap,
  maxElementBytes = DEFAULT_MAX_RECORD_BYTES,
): AsyncGenerator<RecordEvent[]> {
  const scan = new ArrayScanner(maxElementBytes);
  let events: RecordEvent[] = [];
  let bytes = 0;
  let error: unknown;
  const take = (element: Buffer) => {
    const index = scan.elements;
    let item: unknown;
    try {
      item = JSON.parse(element.toString('utf8'));
    } catch (err) {
      throw new FileFormatError(
        `not readable as JSON: element ${index}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    events.push(objectRecord(item, index));
    bytes += element.length;
  };
  read: for await (const chunk of source.pipe(tap) as AsyncIterable<Buffer>) {
    // In slices: a 64 KiB chunk of `{},` is 21,000 elements, more than a batch should hold.
    for (let at = 0; at < chunk.length; at += SLICE) {
      try {
        scan.write(chunk.subarray(at, at + SLICE), take);
      } catch (err) {
        error = err;
        source.destroy();
        break read;
      }
      if (events.length >= SMALL_BATCH || bytes >= BATCH_BYTES) {
        yield events;
        events = [];
        bytes = 0;
      }
    }
  }
  if (error === undefined) {
    try {
      scan.end();
    } catch (err) {
      error = err;
    }
  }
  // The elements read before a bad one are handed on first (rows rejected so far).
  if (events.length > 0) yield events;
  if (error !== undefined) throw error;
}

/** Where the scanner is in the array's top level. */
const At = {
  Start: 0,
  /** After `[` or a comma: an element (or, right after `[`, the `]`) comes next. */
  Element: 1,
  /** Inside an element. */
  InElement: 2,
  /** After an element: a comma or `]` comes next. */
  AfterElement: 3,
  /** After the closing `]`: only whitespace may follow. */
  End: 4,
} as const;
type At = (typeof At)[keyof typeof At];

/** The top level of a JSON array, fed in chunks; each element's bytes go to `take`, whole. */
class ArrayScanner {
  readonly #max: number;
  #at: At = At.Start;
  #first = true;
  #pieces: Buffer[] = [];
  #held = 0;
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** Elements completed so far (the index of the one being read is this plus one). */
  elements = 0;

  constructor(maxElementBytes: number) {
    this.#max = maxElementBytes;
  }

  write(chunk: Buffer, take: (element: Buffer) => void): void {
    let i = 0;
    if (this.#first) {
      this.#first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    }
    let start = -1; // where the element's bytes in this chunk begin
    for (; i < chunk.length; i++) {
      const b = chunk[i]!;
      switch (this.#at) {
        case At.Start:
          if (isSpace(b)) continue;
          if (b !== OPEN_ARRAY) throw new FileFormatError('not a JSON array of objects');
          this.#at = At.Element;
          continue;
        case At.Element:
          if (isSpace(b)) continue;
          if (b === CLOSE_ARRAY && this.elements === 0) {
            this.#at = At.End;
            continue;
          }
          this.#at = At.InElement;
          start = i;
          this.#depth = 0;
          this.#inString = false;
          this.#escaped = false;
          break; // this byte is the element's first: read below
        case At.AfterElement:
          if (isSpace(b)) continue;
          if (b === COMMA) this.#at = At.Element;
          else if (b === CLOSE_ARRAY) this.#at = At.End;
          else throw this.#bad(`expected , or ] after element ${this.elements}`);
          continue;
        case At.End:
          if (isSpace(b)) continue;
          throw this.#bad('text after the closing ]');
        case At.InElement:
          if (start === -1) start = i;
          break;
      }
      // Inside an element.
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (b === BACKSLASH) this.#escaped = true;
        else if (b === QUOTE) this.#inString = false;
        continue;
      }
      if (b === QUOTE) this.#inString = true;
      else if (b === OPEN_OBJECT || b === OPEN_ARRAY) this.#depth++;
      else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        if (this.#depth > 0) this.#depth--;
        else if (b === CLOSE_ARRAY) {
          // A scalar element ended by the array's end.
          this.#finish(chunk.subarray(start, i), take);
          this.#at = At.End;
          start = -1;
          continue;
        }
        if (this.#depth === 0) {
          this.#finish(chunk.subarray(start, i + 1), take);
          this.#at = At.AfterElement;
          start = -1;
        }
      } else if (this.#depth === 0 && b === COMMA) {
        // A scalar element ended by a comma.
        this.#finish(chunk.subarray(start, i), take);
        this.#at = At.Element;
        start = -1;
      }
    }
    if (this.#at === At.InElement && start !== -1) this.#hold(chunk.subarray(start));
  }

  end(): void {
    if (this.#at === At.InElement) {
      throw new FileFormatError(`not readable as JSON: element ${this.elements + 1} never ends`);
    }
    if (this.#at !== At.End) throw this.#bad('the array never ends');
  }

  #hold(piece: Buffer): void {
    this.#held += piece.length;
    if (this.#held > this.#max) {
      throw new FileFormatError(
        `element ${this.elements + 1}: a record longer than ${this.#max} bytes (the INBOX_MAX_RECORD_BYTES limit)`,
      );
    }
    this.#pieces.push(Buffer.from(piece)); // a copy: the chunk's memory is not kept alive
  }

  #finish(last: Buffer, take: (element: Buffer) => void): void {
    if (this.#held + last.length > this.#max) this.#hold(last); // throws
    const element = this.#pieces.length === 0 ? last : Buffer.concat([...this.#pieces, last]);
    this.#pieces = [];
    this.#held = 0;
    this.elements++;
    take(element);
  }

  #bad(what: string): FileFormatError {
    return new FileFormatError(`not readable as JSON: ${what}`);
  }
}
