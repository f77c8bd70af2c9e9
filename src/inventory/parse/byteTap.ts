import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * A pass-through that hashes the bytes it sees (sha256) and, made with `countLines`, can tell how
 * many line feeds lie before a byte offset, for parsers that report records by byte offset.
 * Offsets asked for must not decrease; chunks behind the last offset asked for are dropped. A tap
 * that only hashes keeps no chunk at all (a file is never held whole).
 */
export class ByteTap extends Transform {
  readonly #countLines: boolean;
  readonly #hash: Hash = createHash('sha256');
  readonly #chunks: Buffer[] = [];
  /** Offset of the first byte of #chunks[0]. */
  #base = 0;
  /** Offset up to which line feeds have been counted, and how many. */
  #pos = 0;
  #lineFeeds = 0;
  bytes = 0;

  constructor(options: { readonly countLines?: boolean } = {}) {
    super();
    this.#countLines = options.countLines ?? false;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.#hash.update(chunk);
    if (this.#countLines) this.#chunks.push(chunk);
    this.bytes += chunk.length;
    done(null, chunk);
  }

  /** The sha256 of everything that went through, as hex; call once, at the end. */
  digest(): string {
    return this.#hash.digest('hex');
  }

  /** Number of line feeds in bytes [0, offset) (a tap made with `countLines` only). */
  lineFeedsBefore(offset: number): number {
    if (!this.#countLines) throw new Error('this ByteTap does not count lines');
    while (this.#pos < offset) {
      const chunk = this.#chunks[0];
      if (chunk === undefined) break;
      const end = Math.min(offset, this.#base + chunk.length);
      let i = this.#pos - this.#base;
      const stop = end - this.#base;
      for (;;) {
        const at = chunk.indexOf(10, i);
        if (at === -1 || at >= stop) break;
        this.#lineFeeds++;
        i = at + 1;
      }
      this.#pos = end;
      if (end === this.#base + chunk.length) {
        this.#chunks.shift();
        this.#base = end;
      }
    }
    return this.#lineFeeds;
  }
}
