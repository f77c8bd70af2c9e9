import type { FileHandle } from 'node:fs/promises';
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import {
  type Entry,
  fromRandomAccessReaderPromise,
  openPromise,
  RandomAccessReader,
  type ZipFile,
} from 'yauzl';
import { FileFormatError } from '../records.ts';
import { partKey } from './opc.ts';

/**
 * The zip container of a workbook, read through its central directory (the authority on what a
 * zip holds, wherever its entries lie: parts are found in any order), one part at a time, each
 * inflated as a stream. yauzl checks that a part inflates to exactly the size its directory
 * entry declares, so the declared sizes can be trusted by the checks below.
 */

/** Bounds on what a package may make the reader do; each breach is a bad file with a reason. */
export interface PackageLimits {
  /** Most entries in the zip's directory (a workbook has tens). */
  readonly maxEntries: number;
  /** Most bytes a part read may inflate to. */
  readonly maxPartBytes: number;
  /**
   * Highest inflated/compressed size ratio of a part read that inflates to more than
   * `ratioGraceBytes` (a deflate bomb: a few hundred KB that inflate to gigabytes).
   */
  readonly maxRatio: number;
  readonly ratioGraceBytes: number;
}

export const DEFAULT_PACKAGE_LIMITS: PackageLimits = {
  maxEntries: 10_000,
  maxPartBytes: 4 * 1024 ** 3,
  maxRatio: 200,
  ratioGraceBytes: 1024 * 1024,
};

export class Package {
  readonly #zip: ZipFile;
  readonly #entries: Map<string, Entry>;
  readonly #limits: PackageLimits;

  private constructor(zip: ZipFile, entries: Map<string, Entry>, limits: PackageLimits) {
    this.#zip = zip;
    this.#entries = entries;
    this.#limits = limits;
  }

  /**
   * Opens the zip at `file` (a path, or a file open for reading, which stays open) and reads its
   * directory; a file that is no zip is a FileFormatError.
   */
  static async open(
    file: string | FileHandle,
    limits: PackageLimits = DEFAULT_PACKAGE_LIMITS,
  ): Promise<Package> {
    let zip: ZipFile;
    try {
      const options = { autoClose: false, strictFileNames: false };
      zip = await (typeof file === 'string'
        ? openPromise(file, options)
        : fromRandomAccessReaderPromise(new HandleReader(file), (await file.stat()).size, options));
    } catch (err) {
      throw new FileFormatError(`not a zip file (${(err as Error).message})`, { cause: err });
    }
    const entries = new Map<string, Entry>();
    try {
      for await (const entry of zip.eachEntry()) {
        if (entries.size >= limits.maxEntries) {
          throw new FileFormatError(`its zip holds more than ${limits.maxEntries} entries`);
        }
        if (!entry.fileName.endsWith('/')) entries.set(partKey(entry.fileName), entry);
      }
    } catch (err) {
      zip.close();
      if (err instanceof FileFormatError) throw err;
      throw new FileFormatError(`a damaged zip (${(err as Error).message})`, { cause: err });
    }
    return new Package(zip, entries, limits);
  }

  /** Whether the package holds the part (by part name, case-insensitive). */
  has(partName: string): boolean {
    return this.#entries.has(partKey(partName));
  }

  /** The inflated size of a part, as its directory entry declares it. */
  sizeOf(partName: string): number | undefined {
    return this.#entries.get(partKey(partName))?.uncompressedSize;
  }

  /**
   * The part's bytes, inflated as they are read. A part that is encrypted, compressed by a method
   * other than deflate, larger than the limit or inflating like a bomb is a FileFormatError, as is
   * a part whose data does not match its directory entry (reported by the stream).
   */
  async open(partName: string): Promise<Readable> {
    const entry = this.#entries.get(partKey(partName));
    if (entry === undefined) throw new FileFormatError(`its part ${partName} is missing`);
    const name = entry.fileName;
    if (entry.isEncrypted()) throw new FileFormatError(`its part ${name} is encrypted`);
    if (!entry.canDecodeFileData()) {
      throw new FileFormatError(
        `its part ${name} is compressed with method ${entry.compressionMethod} (only deflate and stored are read)`,
      );
    }
    const { maxPartBytes, maxRatio, ratioGraceBytes } = this.#limits;
    const size = entry.uncompressedSize;
    if (size > maxPartBytes) {
      throw new FileFormatError(
        `its part ${name} inflates to ${size} bytes, more than the ${maxPartBytes} read`,
      );
    }
    if (size > ratioGraceBytes && size > maxRatio * Math.max(1, entry.compressedSize)) {
      const ratio = Math.round(size / Math.max(1, entry.compressedSize));
      throw new FileFormatError(
        `its part ${name} inflates ${ratio} times (${entry.compressedSize} bytes to ${size}; more than ${maxRatio} times is taken for a zip bomb)`,
      );
    }
    let raw: Readable;
    try {
      raw = await this.#zip.openReadStreamPromise(entry, { decodeFileData: false });
    } catch (err) {
      throw new FileFormatError(`its part ${name} cannot be read (${(err as Error).message})`, {
        cause: err,
      });
    }
    // Inflated here rather than by yauzl, in larger pieces (yauzl's 16 KiB made four times the
    // chunks for the XML parser to take), and held to the size the directory declares.
    const counted = new SizeCheck(name, size);
    if (entry.compressionMethod === 0) return pipeline(raw, counted, () => {});
    return pipeline(raw, createInflateRaw({ chunkSize: INFLATE_CHUNK }), counted, () => {});
  }

  close(): void {
    this.#zip.close();
  }
}

/** Bytes an inflated part is handed on in. */
const INFLATE_CHUNK = 32 * 1024;

/** Passes a part's bytes on, failing when they are more or fewer than its entry declares. */
class SizeCheck extends Transform {
  #seen = 0;
  readonly #name: string;
  readonly #size: number;

  constructor(name: string, size: number) {
    super();
    this.#name = name;
    this.#size = size;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.#seen += chunk.length;
    if (this.#seen > this.#size) done(this.#mismatch('more'));
    else done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    done(this.#seen === this.#size ? null : this.#mismatch('fewer'));
  }

  #mismatch(what: string): FileFormatError {
    return new FileFormatError(
      `its part ${this.#name} inflates to ${what} bytes than its zip entry declares (${this.#size})`,
    );
  }
}

/**
 * Reads ranges of a file that its owner keeps open (and closes) by position: yauzl's `fromFd`
 * closes the descriptor with the zip, and Node closes a descriptor when a read stream on it is
 * destroyed, whatever `autoClose` says.
 */
class HandleReader extends RandomAccessReader {
  readonly #handle: FileHandle;

  constructor(handle: FileHandle) {
    super();
    this.#handle = handle;
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const handle = this.#handle;
    let position = start;
    return new Readable({
      highWaterMark: RANGE_CHUNK,
      read(size) {
        const length = Math.min(Math.max(size, RANGE_CHUNK), end - position);
        if (length <= 0) {
          this.push(null);
          return;
        }
        handle.read(Buffer.allocUnsafe(length), 0, length, position).then(
          ({ bytesRead, buffer }) => {
            position += bytesRead;
            this.push(bytesRead === 0 ? null : buffer.subarray(0, bytesRead));
          },
          (err: Error) => this.destroy(err),
        );
      },
    });
  }
}

/** Bytes read from the file at a time. */
const RANGE_CHUNK = 64 * 1024;
