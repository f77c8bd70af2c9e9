import { Transform, type TransformCallback } from 'node:stream';
import { TextDecoder } from 'node:util';

/**
 * The text encodings of delimited inbox files, and a streaming decoder to UTF-8.
 *
 * Detection (product contract, "ERP exports as they come"): a byte-order mark decides (UTF-8,
 * UTF-16LE, UTF-16BE); without one, UTF-8 when the first 64 KiB are valid UTF-8, else
 * Windows-1252. A profile may force an encoding; a BOM still wins over it, because a BOM is never
 * the start of a real header in any of the other encodings and an ERP that switched to writing one
 * says so with it.
 */

/** An encoding a file is read with, as reports name it. */
export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/**
 * What a profile may ask for. `iso-8859-1` is read as Windows-1252, as every browser does (the
 * WHATWG Encoding Standard maps the label so): the two differ only in 0x80–0x9F, which are
 * control characters in ISO-8859-1 and printable (€, „, …) in Windows-1252, and files labelled
 * Latin-1 that use that range mean the Windows characters. Reports then say `windows-1252`.
 */
export type EncodingChoice = 'auto' | TextEncoding | 'iso-8859-1';

/** How many leading bytes detection looks at. */
export const DETECT_BYTES = 64 * 1024;

const BOMS: ReadonlyArray<{ readonly bytes: readonly number[]; readonly encoding: TextEncoding }> =
  [
    { bytes: [0xef, 0xbb, 0xbf], encoding: 'utf-8' },
    { bytes: [0xff, 0xfe], encoding: 'utf-16le' },
    { bytes: [0xfe, 0xff], encoding: 'utf-16be' },
  ];

/** The encoding a byte-order mark at the start of `head` names, if any. */
export function bomEncoding(head: Uint8Array): TextEncoding | undefined {
  return BOMS.find(({ bytes }) => bytes.every((b, i) => head[i] === b))?.encoding;
}

/**
 * Whether `head` is valid UTF-8. When `complete` is false the bytes are the start of a longer
 * file, so a sequence cut by the end of the window is not held against it.
 */
export function isValidUtf8(head: Uint8Array, complete: boolean): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !complete });
    return true;
  } catch {
    return false;
  }
}

/**
 * The encoding to read a file with, from its first bytes (up to DETECT_BYTES; `complete` when
 * they are the whole file) and the profile's choice.
 */
export function chooseEncoding(
  head: Uint8Array,
  complete: boolean,
  choice: EncodingChoice = 'auto',
): TextEncoding {
  const bom = bomEncoding(head);
  if (bom !== undefined) return bom;
  if (choice === 'iso-8859-1') return 'windows-1252';
  if (choice !== 'auto') return choice;
  return isValidUtf8(head.subarray(0, DETECT_BYTES), complete) ? 'utf-8' : 'windows-1252';
}

/**
 * Decodes a byte stream to UTF-8 bytes, in the stream: it holds back at most the first 64 KiB (to
 * detect the encoding), then passes each chunk on as it comes. A UTF-8 sequence or a UTF-16 code
 * unit (or surrogate pair) cut between two chunks is carried over by the decoder, not mangled. A
 * BOM is dropped; invalid bytes become U+FFFD (which no SKU, code or column name accepts), as
 * before. Line feeds are kept one for one, so lines counted in the output are lines of the file
 * as it is. `encoding` is set once known (before the first output), and `onEncoding` is called
 * then.
 */
export class DecodeStream extends Transform {
  encoding: TextEncoding | undefined;
  readonly #choice: EncodingChoice;
  readonly #onEncoding: ((encoding: TextEncoding) => void) | undefined;
  #decoder: TextDecoder | undefined;
  #held: Buffer[] = [];
  #heldBytes = 0;

  constructor(choice: EncodingChoice = 'auto', onEncoding?: (encoding: TextEncoding) => void) {
    super();
    this.#choice = choice;
    this.#onEncoding = onEncoding;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.#decoder !== undefined) {
      done(null, this.#decode(chunk, true));
      return;
    }
    this.#held.push(chunk);
    this.#heldBytes += chunk.length;
    // A BOM, or a forced encoding, needs no more than the first bytes; detection needs 64 KiB.
    const enough =
      this.#heldBytes >= DETECT_BYTES ||
      (this.#heldBytes >= 3 &&
        (this.#choice !== 'auto' || bomEncoding(this.#head()) !== undefined));
    if (enough) done(null, this.#release(false));
    else done();
  }

  override _flush(done: TransformCallback): void {
    const out = this.#decoder === undefined ? this.#release(true) : Buffer.alloc(0);
    const tail = Buffer.from(this.#decoder!.decode(), 'utf8');
    done(null, tail.length > 0 ? Buffer.concat([out, tail]) : out);
  }

  #head(): Buffer {
    if (this.#held.length > 1) this.#held = [Buffer.concat(this.#held)];
    return this.#held[0] ?? Buffer.alloc(0);
  }

  /** Decides the encoding and decodes what was held back. */
  #release(complete: boolean): Buffer {
    const head = this.#head();
    const encoding = chooseEncoding(head, complete, this.#choice);
    this.encoding = encoding;
    // ignoreBOM false: the decoder drops a BOM of its own encoding at the start.
    this.#decoder = new TextDecoder(encoding, { ignoreBOM: false });
    this.#held = [];
    this.#heldBytes = 0;
    this.#onEncoding?.(encoding);
    return this.#decode(head, !complete);
  }

  #decode(chunk: Uint8Array, stream: boolean): Buffer {
    return Buffer.from(this.#decoder!.decode(chunk, { stream }), 'utf8');
  }
}
