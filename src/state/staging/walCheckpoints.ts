import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StateDb } from '../db.ts';

/** The worker's module: checkpointWorker.ts next to this file, or .js once compiled. */
const WORKER_URL = new URL(
  `./checkpointWorker${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
);

/**
 * WAL frames (pages) the merge lets pile up before it waits for a checkpoint that copies them
 * all (16 MiB): the WAL starts over only once every frame in it is copied, which a checkpoint
 * running beside the merge's commits never quite gets to (they keep appending).
 */
export const WAL_BOUND_PAGES = 4096;

type Answer =
  | { readonly ready: true }
  | { readonly log: number; readonly copied: number }
  | { readonly closed: true }
  | { readonly error: { name: string; message: string; code?: string } };

/**
 * The checkpoints of state.db's WAL while a large staged apply is merged, taken in a worker
 * thread (checkpointWorker.ts) instead of inside the merge's commits. A checkpoint copies the
 * WAL's pages into the database file and flushes both: tens of milliseconds on a quiet disk, far
 * more on a busy or slow one, and all of it on the event loop when a commit takes it.
 *
 * Once the thread has its connection open, the state connection takes no checkpoint of its own
 * (`wal_autocheckpoint = 0` for every commit on it: the merge's and whatever else the daemon
 * writes meanwhile; until then its commits take them as before). After each
 * merge transaction `afterChunk()` starts a checkpoint unless one is running, so they follow one
 * another beside the merge; once the WAL holds `boundPages` frames, the merge waits (the event
 * loop does not) for one that copies them all, so that the next commit starts the WAL over and
 * its file stays about that size. `finish()` copies the rest and gives the state connection its
 * own checkpoints back.
 *
 * Durability is SQLite's: a passive checkpoint flushes the WAL before it copies, never stops the
 * writer, and a commit is as durable as its own `synchronous` says. Should the thread fail, the
 * state connection takes its checkpoints again and the merge goes on (`failure` says why).
 */
export class WalCheckpoints {
  readonly #db: StateDb;
  readonly #worker: Worker;
  readonly #bound: number;
  /** The state connection's wal_autocheckpoint, given back at the end. */
  readonly #autocheckpoint: number;
  #answer: ((a: Answer) => void) | undefined;
  #running: Promise<void> | undefined;
  /** Frames in the WAL as the last checkpoint found it (0: all copied, nothing written since). */
  #frames = 0;
  /** The thread has its connection open (and the state connection's checkpoints are off). */
  #ready = false;
  #ended = false;
  #closing = false;
  /** Why the thread stopped early, if it did (checkpoints are the commits' again since). */
  failure: Error | undefined;
  /** Settles once the thread has taken the checkpoints over (true) or could not (false). */
  readonly started: Promise<boolean>;
  #started: (ready: boolean) => void = () => undefined;

  private constructor(db: StateDb, bound: number) {
    this.#db = db;
    this.#bound = bound;
    this.#autocheckpoint = db.pragma('wal_autocheckpoint', { simple: true }) as number;
    this.started = new Promise<boolean>((resolve) => {
      this.#started = resolve;
    });
    this.#worker = new Worker(WORKER_URL, { workerData: { checkpoint: db.name } });
    this.#worker.on('message', (a: Answer) => this.#take(a));
    this.#worker.on('error', (err) => this.#fail(err));
    this.#worker.on('exit', (code) => {
      if (!this.#closing)
        this.#fail(new Error(`the checkpoint thread stopped (exit code ${code})`));
    });
    db.pragma('wal_autocheckpoint = 0');
  }

  /**
   * Starts the thread; undefined for a database without a WAL file (in memory). `boundPages`:
   * WAL frames before the merge waits (default WAL_BOUND_PAGES).
   */
  static start(db: StateDb, options: { boundPages?: number } = {}): WalCheckpoints | undefined {
    if (db.memory || db.pragma('journal_mode', { simple: true }) !== 'wal') return undefined;
    return new WalCheckpoints(db, options.boundPages ?? WAL_BOUND_PAGES);
  }

  /** After a merge transaction: starts a checkpoint, or waits for a full one at the bound. */
  async afterChunk(): Promise<void> {
    if (this.#ended || !this.#ready) return;
    if (this.#frames < this.#bound) {
      this.#running ??= this.#checkpoint(false);
      return;
    }
    await this.#running;
    await this.#checkpointAlone();
  }

  /** Copies every frame left, ends the thread and gives the connection its checkpoints back. */
  async finish(): Promise<void> {
    if (!this.#ready) {
      // The commits took every checkpoint: nothing is left for the thread.
      this.stop();
      return;
    }
    await this.#running;
    await this.#checkpointAlone();
    if (!this.#ended) {
      this.#closing = true;
      await this.#ask({ close: true });
    }
    this.stop();
  }

  /** Ends the thread now (a failed merge) and gives the connection its checkpoints back. */
  stop(): void {
    this.#started(false);
    if (!this.#ended) {
      this.#ended = true;
      this.#restore();
    }
    this.#closing = true;
    void this.#worker.terminate();
  }

  /** A checkpoint with nothing committed meanwhile (the caller waits for it). */
  #checkpointAlone(): Promise<void> {
    this.#running = this.#checkpoint(true);
    return this.#running;
  }

  /**
   * `alone`: nothing of the merge commits meanwhile, so once it has copied every frame the next
   * commit starts the WAL over. Beside the commits, the frames they add stay to copy.
   */
  #checkpoint(alone: boolean): Promise<void> {
    return this.#ask({ checkpoint: true }).then((a) => {
      this.#running = undefined;
      if ('log' in a) this.#frames = alone && a.copied >= a.log ? 0 : a.log;
    });
  }

  /** One message at a time: the thread answers each before the next is sent. */
  #ask(message: object): Promise<Answer> {
    if (this.#ended) return Promise.resolve({ closed: true });
    return new Promise<Answer>((resolve) => {
      this.#answer = resolve;
      this.#worker.postMessage(message);
    });
  }

  #take(a: Answer): void {
    if ('error' in a) {
      this.#fail(Object.assign(new Error(a.error.message), a.error));
      return;
    }
    if ('ready' in a) {
      if (this.#ended) return;
      this.#ready = true;
      this.#db.pragma('wal_autocheckpoint = 0');
      this.#started(true);
      return;
    }
    const answer = this.#answer;
    this.#answer = undefined;
    answer?.(a);
  }

  #fail(err: Error): void {
    this.#started(false);
    if (this.#ended) return;
    this.failure ??= err;
    this.#ended = true;
    this.#restore();
    const answer = this.#answer;
    this.#answer = undefined;
    answer?.({ closed: true });
  }

  #restore(): void {
    if (this.#db.open) this.#db.pragma(`wal_autocheckpoint = ${this.#autocheckpoint}`);
  }
}
