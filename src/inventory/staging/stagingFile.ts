import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StockKind } from '../../domain/stock.ts';
import {
  type DuplicateSummary,
  type DuplicatesListed,
  type StagedDuplicates,
  summarizeDuplicates,
} from '../../state/staging/duplicateSummary.ts';
import { removeStagingFile, scratchName, stagingDir } from '../../state/staging/scratchFiles.ts';
import { StagingError } from '../../state/staging/stagingError.ts';
import {
  countStagedRows,
  type NamedRow,
  openStagingDb,
  type ScratchDb,
  StagingWriter,
} from '../../state/staging/stagingWriter.ts';

/** The worker's module: stagingWorker.ts next to this file, or .js once compiled. */
const WORKER_URL = new URL(
  `./stagingWorker${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
);

type WorkerAnswer =
  | { readonly done: true }
  | { readonly closed: true; readonly summary?: DuplicateSummary }
  | { readonly error: { name: string; message: string; code?: string } };

/**
 * The scratch database of one staged set (a file's or a snapshot's stock rows): its own SQLite
 * file under `<data dir>/staging/`, its own connection (schema and writing: stagingWriter.ts).
 * Rows are deduplicated as they arrive (last line of a key wins), and every replaced row is
 * logged, so the report can list them without holding anything in memory.
 *
 * A set is staged in the thread that reads it until it passes `workerAfterRows` rows; then the
 * connection is handed to a worker thread (stagingWorker.ts) that writes the rest while the
 * reading thread goes on reading: on two cores, staging a large file costs the reader only the
 * copying of its batches. Small files never start a thread. A few batches at most are in flight
 * (`ready()` says when the reader must wait), and `finish()` takes the connection back once the
 * worker has written everything; the reads below want it back.
 */

/** Rows buffered in JavaScript before they are staged (in one transaction). */
const BATCH = 4096;
/** Rows staged in the reading thread before a worker thread takes over (default). */
export const WORKER_AFTER_ROWS = 50_000;
/** Batches handed to the worker and not yet written, before the reader waits. */
const MAX_IN_FLIGHT = 4;

/**
 * Writes one staged set. `put` buffers; a full buffer is staged in one transaction of multi-row
 * upserts (rows in file order, so the last line of a key wins). `finish()` stages the rest;
 * `close()` closes the connection; `sync()` makes the file durable, after which it can be
 * ATTACHed to the state connection.
 */
export class StagingFile {
  readonly name: string;
  readonly path: string;
  /** The writing connection, while it is in this thread. */
  #writer: StagingWriter | undefined;
  /** The worker thread holding the writing connection, while one does. */
  #worker: Worker | undefined;
  #inFlight = 0;
  #wake: (() => void) | undefined;
  #failure: Error | undefined;
  #workerAfterRows: number;
  #staged = 0;
  /** Flat, per kind: sku, quantity, line of each buffered factory row; dc first for DC rows. */
  #factory: Array<string | number> = [];
  #dc: Array<string | number> = [];
  #named: NamedRow[] = [];
  #lastNamed: NamedRow | undefined;
  readonly #sum: boolean;
  /** The replaced rows as the worker thread worked them out (finish()), with its limits. */
  #summary: { listed: DuplicatesListed; summary: DuplicateSummary } | undefined;

  private constructor(dir: string, workerAfterRows: number, sum: boolean) {
    mkdirSync(dir, { recursive: true });
    this.name = scratchName(randomBytes(6).toString('hex'), '.db');
    this.path = join(dir, this.name);
    this.#sum = sum;
    try {
      this.#writer = new StagingWriter(openStagingDb(this.path, true), {
        raw: false,
        last: [],
        sum,
      });
    } catch (err) {
      // SQLite made the file before it failed (a full disk): no empty scratch file is left.
      removeStagingFile(this.path);
      throw err;
    }
    this.#workerAfterRows = workerAfterRows;
  }

  /**
   * A new scratch database in `<dataDir>/staging/`; its writing moves to a worker thread after
   * `workerAfterRows` rows (Infinity: never). `sum`: rows of one key add up (a profile's
   * `duplicates: "sum"`) instead of the last one replacing the others.
   */
  static create(
    dataDir: string,
    options: { workerAfterRows?: number; sum?: boolean } = {},
  ): StagingFile {
    return new StagingFile(
      stagingDir(dataDir),
      options.workerAfterRows ?? WORKER_AFTER_ROWS,
      options.sum ?? false,
    );
  }

  /** Stages a stock row; a later row with the same key replaces it (or adds up, `sum`). */
  put(kind: StockKind, dc: string, sku: string, quantity: number, line: number): void {
    if (kind === 'factory') {
      this.#factory.push(sku, quantity, line);
      if (this.#factory.length >= BATCH * 3) this.#flushStock();
    } else {
      this.#dc.push(dc, sku, quantity, line);
      if (this.#dc.length >= BATCH * 4) this.#flushStock();
    }
  }

  /**
   * Keeps a key the file names without a staged row (a row rejected for its quantity, a row a
   * profile keeps as it is): a full export does not zero it.
   */
  nameKey(kind: StockKind, dc: string, sku: string): void {
    // The key of the row before, named already (rows rejected one after another for one key):
    // kept once, as the set of named keys would keep it.
    const last = this.#lastNamed;
    if (last !== undefined && last[2] === sku && last[1] === dc && last[0] === kind) return;
    const key: NamedRow = [kind, dc, sku];
    this.#lastNamed = key;
    this.#named.push(key);
    if (this.#named.length >= BATCH) this.#flushNamed();
  }

  /** Stages what is buffered (called at the end of each parsed batch and at each pause). */
  flush(): void {
    // A worker thread gets whole batches only (put() hands them on): a reader flushing at every
    // pause would otherwise post a message a row.
    if (this.#worker !== undefined) {
      this.#throwIfFailed();
      return;
    }
    this.#flushAll();
  }

  #flushAll(): void {
    this.#flushStock();
    this.#flushNamed();
  }

  /**
   * undefined when the reader may go on; else a promise that settles once the worker has caught
   * up (rejected with the worker's error if it failed).
   */
  ready(): Promise<void> | undefined {
    this.#throwIfFailed();
    if (this.#inFlight <= MAX_IN_FLIGHT) return undefined;
    return this.#caughtUp(MAX_IN_FLIGHT);
  }

  /**
   * Stages the rest; a worker thread writing the set finishes and hands the connection back,
   * having worked out the replaced rows for the report as `listed` says (duplicates()).
   */
  async finish(listed?: DuplicatesListed): Promise<void> {
    this.#flushAll();
    const worker = this.#worker;
    if (worker === undefined) {
      this.#writer?.settle();
      return;
    }
    await this.#caughtUp(0);
    const closed = new Promise<DuplicateSummary | undefined>((resolve, reject) => {
      worker.on('message', (m: WorkerAnswer) => {
        if ('closed' in m) resolve(m.summary);
      });
      worker.once('exit', () => reject(this.#failure ?? new Error('the staging worker stopped')));
    });
    worker.postMessage({ close: true, ...(listed === undefined ? {} : { listed }) });
    const summary = await closed;
    if (listed !== undefined && summary !== undefined) this.#summary = { listed, summary };
    this.#worker = undefined;
    this.#writer = new StagingWriter(openStagingDb(this.path, false), {
      raw: false,
      last: [],
      sum: this.#sum,
    });
  }

  #flushStock(): void {
    if (this.#factory.length === 0 && this.#dc.length === 0) return;
    const batch = { factory: this.#factory, dc: this.#dc };
    this.#staged += (this.#factory.length / 3 + this.#dc.length / 4) | 0;
    this.#factory = [];
    this.#dc = [];
    if (this.#worker !== undefined) {
      this.#post({ stock: batch });
      return;
    }
    this.#local().stage(batch);
    if (this.#staged >= this.#workerAfterRows) this.#handOver();
  }

  #flushNamed(): void {
    if (this.#named.length === 0) return;
    const named = this.#named;
    this.#named = [];
    if (this.#worker !== undefined) {
      this.#post({ named });
      return;
    }
    this.#local().name(named);
  }

  /** Closes the connection here and starts a worker thread that opens it and writes from now on. */
  #handOver(): void {
    const order = this.#writer!.order();
    this.#writer!.db.close();
    this.#writer = undefined;
    const worker = new Worker(WORKER_URL, { workerData: { path: this.path, order } });
    worker.on('message', (m: WorkerAnswer) => {
      if ('done' in m) this.#inFlight--;
      else if ('error' in m) this.#fail(Object.assign(new Error(m.error.message), m.error));
      else return;
      this.#wake?.();
    });
    worker.on('error', (err) => this.#fail(err));
    worker.on('exit', (code) => {
      if (this.#worker === worker) this.#fail(new Error(`the staging worker stopped (${code})`));
    });
    this.#worker = worker;
  }

  #post(message: object): void {
    this.#throwIfFailed();
    this.#inFlight++;
    this.#worker!.postMessage(message);
  }

  #fail(err: Error): void {
    this.#failure ??= new StagingError(this.name, err);
    this.#wake?.();
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** Settles once at most `inFlight` batches are unwritten. */
  async #caughtUp(inFlight: number): Promise<void> {
    while (this.#inFlight > inFlight) {
      this.#throwIfFailed();
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
    this.#throwIfFailed();
  }

  #local(): StagingWriter {
    if (this.#worker !== undefined) {
      throw new Error(`staging file ${this.name} is being written by a worker: finish() first`);
    }
    if (this.#writer === undefined) throw new Error(`staging file ${this.name} is closed`);
    return this.#writer;
  }

  #open(): ScratchDb {
    this.flush();
    const writer = this.#local();
    writer.settle();
    return writer.db;
  }

  /** Rows in the staged set (distinct keys). */
  count(): number {
    return countStagedRows(this.#open());
  }

  /**
   * The replaced rows, for the report: as the worker thread worked them out when `finish()` was
   * given these limits, else worked out here.
   */
  duplicates(maxKeys: number, maxLines: number): StagedDuplicates {
    const known = this.#summary;
    const s =
      known !== undefined && known.listed.keys === maxKeys && known.listed.lines === maxLines
        ? known.summary
        : summarizeDuplicates(this.#open(), { keys: maxKeys, lines: maxLines });
    return { rows: s.rows, keys: s.keys, keysOmitted: s.keysOmitted };
  }

  /** Replaced rows by kind. */
  duplicateCounts(): Record<StockKind, number> {
    return (this.#summary?.summary ?? summarizeDuplicates(this.#open(), { keys: 0, lines: 0 }))
      .byKind;
  }

  /** Stages the rest and closes the connection (the file stays, for ATTACH). */
  close(): void {
    if (this.#writer === undefined && this.#worker === undefined) return;
    this.#open().close();
    this.#writer = undefined;
  }

  /** Makes the file and its name durable (fsync of the file and its folder, off the event loop). */
  async sync(): Promise<void> {
    for (const p of [this.path, dirname(this.path)]) {
      const handle = await open(p, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  }

  /** Closes (without syncing) and deletes the file. */
  discard(): void {
    this.#writer?.db.close();
    this.#writer = undefined;
    const worker = this.#worker;
    this.#worker = undefined;
    void worker?.terminate();
    removeStagingFile(this.path);
  }
}
