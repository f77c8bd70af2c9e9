import type { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
import { SaxesParser } from 'saxes';
import { FileFormatError } from '../records.ts';
import { localName } from './opc.ts';

/** What a part's reader does with the XML as it streams; names are local (prefix dropped). */
export interface XmlHandlers {
  open(name: string, attributes: Record<string, string>): void;
  text(text: string): void;
  close(name: string): void;
}

export interface XmlLimits {
  /**
   * Most characters between two `<`: one text (a cell, a string) or one tag with its attributes.
   * A parser holds such a run whole before it hands it on, so a longer one (a 300 MB cell that
   * compresses to nothing) ends the reading instead of filling memory.
   */
  readonly maxRunChars: number;
  /** Deepest element nesting (a worksheet needs six levels). */
  readonly maxDepth: number;
}

/**
 * Parses one XML part as it streams with saxes (strict: a part that is not well-formed XML is a
 * bad file), calling `handlers` for each element and text; yields after each chunk so that the
 * caller can hand on what its handlers gathered (one await per chunk, not per element). The text
 * is decoded as its byte-order mark or first bytes say (UTF-8, else UTF-16 as XML allows).
 * Every breach of `limits` and every malformed byte is a FileFormatError naming the part.
 */
export async function* parseXml(
  stream: Readable,
  part: string,
  handlers: XmlHandlers,
  limits: XmlLimits,
): AsyncGenerator<void> {
  const parser = new SaxesParser({ position: false });
  let depth = 0;
  parser.on('opentag', (tag) => {
    if (++depth > limits.maxDepth) {
      throw new FileFormatError(`its part ${part} nests elements deeper than ${limits.maxDepth}`);
    }
    handlers.open(localName(tag.name), tag.attributes as Record<string, string>);
  });
  parser.on('closetag', (tag) => {
    depth--;
    handlers.close(localName(tag.name));
  });
  parser.on('text', (text) => handlers.text(text));
  parser.on('cdata', (text) => handlers.text(text));
  const guard = new RunGuard(part, limits.maxRunChars);
  let decoder: TextDecoder | undefined;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      decoder ??= new TextDecoder(encodingOf(chunk), { fatal: true });
      const text = decoder.decode(chunk, { stream: true });
      guard.check(text);
      parser.write(text);
      yield;
    }
    if (decoder !== undefined) parser.write(decoder.decode());
    parser.close();
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
    throw new FileFormatError(
      `its part ${this.#part} holds a cell, string or tag longer than ${this.#max} characters (the INBOX_MAX_RECORD_BYTES limit)`,
    );
  }
}
