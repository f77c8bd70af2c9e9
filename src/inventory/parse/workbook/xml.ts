import type { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
import { FileFormatError } from '../records.ts';
import { tooLong, XmlEvents, type XmlHandlers, type XmlLimits } from './xmlEvents.ts';

export type { XmlHandlers, XmlLimits } from './xmlEvents.ts';

/**
 * Parses one XML part as it streams with htmlparser2's tokenizer in XML mode, calling `handlers`
 * for each element and text; yields after each chunk so that the caller can hand on what its
 * handlers gathered (one await per chunk, not per element). The text is decoded as its
 * byte-order mark or first bytes say (UTF-8, else UTF-16 as XML allows), its line ends
 * normalized as XML says (CR LF and CR are LF), entities decoded as XML's (`&amp;`, `&#13;`;
 * no DTD, so no entity of a document's own).
 *
 * The tokenizer is lenient where saxes (the parser before it: ~13 % more CPU for the reader of a
 * 1M-row workbook, docs/benchmarks.md) was strict; XmlEvents holds a part's structure to what XML says (one root, every element closed in
 * the order opened, attribute values quoted, no attribute twice, no text outside the root): a
 * part that breaks it is a bad file. Left lenient: a stray `&` or `<` in text is read as itself,
 * an unknown entity stays as written, names are not checked character by character — a
 * workbook's writer never makes these, and none can make the reader hold more.
 * Every breach of `limits` and every malformed byte is a FileFormatError naming the part.
 */
export async function* parseXml(
  stream: Readable,
  part: string,
  handlers: XmlHandlers,
  limits: XmlLimits,
): AsyncGenerator<void> {
  const events = new XmlEvents(part, handlers, limits);
  const guard = new RunGuard(part, limits.maxRunChars);
  const lines = new LineEnds();
  let decoder: TextDecoder | undefined;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      decoder ??= new TextDecoder(encodingOf(chunk), { fatal: true });
      const text = lines.normalize(decoder.decode(chunk, { stream: true }));
      guard.check(text);
      events.write(text);
      yield;
    }
    if (decoder !== undefined) events.write(lines.normalize(decoder.decode(), true));
    events.end();
  } catch (err) {
    stream.destroy();
    if (err instanceof FileFormatError) throw err;
    if (
      err instanceof TypeError &&
      (err as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA'
    ) {
      throw new FileFormatError(`its part ${part} is not valid text in its encoding`, {
        cause: err,
      });
    }
    if (isZipError(err)) {
      throw new FileFormatError(`its part ${part} cannot be inflated (${(err as Error).message})`, {
        cause: err,
      });
    }
    if (err instanceof Error && !('code' in err)) {
      throw new FileFormatError(`its part ${part} is not well-formed XML (${err.message})`, {
        cause: err,
      });
    }
    throw err;
  }
  yield;
}

/** XML's end-of-line handling across chunks: CR LF and a lone CR become LF. */
class LineEnds {
  #cr = false;

  normalize(text: string, last = false): string {
    let t = this.#cr ? `\r${text}` : text;
    this.#cr = false;
    if (t.indexOf('\r') === -1) return t;
    if (!last && t.endsWith('\r')) {
      this.#cr = true;
      t = t.slice(0, -1);
    }
    return t.replace(/\r\n?/g, '\n');
  }
}

/** zlib's errors, and yauzl's when a part's data does not match its directory entry. */
function isZipError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('Z_')) return true;
  return (
    err instanceof Error && /too (many|few) bytes|invalid (compressed|stored)/i.test(err.message)
  );
}

/** The encoding of an XML part by its first bytes (XML 1.0, appendix F). */
function encodingOf(head: Buffer): string {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  if (head[0] === 0x3c && head[1] === 0x00) return 'utf-16le';
  if (head[0] === 0x00 && head[1] === 0x3c) return 'utf-16be';
  return 'utf-8';
}

/**
 * Counts the characters since the last `<` across chunks. Within a chunk no shorter than the
 * limit only the runs at its two ends need looking at (any run inside it is shorter than the
 * chunk): two searches a chunk, not one per tag.
 */
class RunGuard {
  #run = 0;
  readonly #part: string;
  readonly #max: number;

  constructor(part: string, max: number) {
    this.#part = part;
    this.#max = max;
  }

  check(text: string): void {
    const first = text.indexOf('<');
    if (first === -1) {
      this.#run += text.length;
      if (this.#run > this.#max) this.#fail();
      return;
    }
    if (this.#run + first > this.#max) this.#fail();
    if (text.length > this.#max) {
      for (
        let at = first, next = text.indexOf('<', at + 1);
        next !== -1;
        next = text.indexOf('<', at + 1)
      ) {
        if (next - at > this.#max) this.#fail();
        at = next;
      }
    }
    this.#run = text.length - text.lastIndexOf('<');
    if (this.#run > this.#max) this.#fail();
  }

  #fail(): never {
    throw tooLong(this.#part, { maxRunChars: this.#max });
  }
}
