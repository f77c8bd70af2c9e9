import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * A pass-through that hashes the bytes it sees (sha256) and counts them. It keeps no chunk (a
 * file is never held whole).
 */
export class ByteTap extends Transform {
  readonly #hash: Hash = createHash('sha256');
  bytes = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.#hash.update(chunk);
    this.bytes += chunk.length;
    done(null, chunk);
  }

  /**
   * Counts and hashes bytes that do not flow through the stream (a reader that reads the file by
   * other means feeds the tap this way, in file order). `chunk` may be reused afterwards.
   */
  update(chunk: Buffer): void {
    this.#hash.update(chunk);
    this.bytes += chunk.length;
  }

  /** The sha256 of everything that went through, as hex; call once, at the end. */
  digest(): string {
    return this.#hash.digest('hex');
  }
}
