import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StateDb } from '../../state/db.ts';

/** The worker's module: checkpointWorker.ts next to this file, or .js once compiled. */
const WORKER_URL = new URL(
  `./checkpointWorker${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
);

/**
 * WAL frames (pages) a merge writes between two checkpoints (8 MiB): what a chunk's commit used
 * to let pile up before it took one itself (MERGE_CHECKPOINT_PAGES in stagedApply.ts).
 */
export const CHECKPOINT_PAGES = 2048;

/** Chunks before the first checkpoint, until the pages a chunk writes are known. */
const FIRST_EVERY = 8;

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
 * writes meanwhile; until then its commits take them as before). Every few chunks — as many as
 * write about `pages` WAL pages, learnt from the checkpoints so far — the merge waits for one
 * (`afterChunk`): the event loop runs meanwhile, the merge's own work is as before, the checkpoint
 * copies every frame (nothing of the merge commits during it) and the next commit starts the WAL
 * over, so that its file stays about that size. (Checkpoints running beside the merge's commits
 * cost a third more CPU, copying pages the next chunks write again, and never let the WAL start
 * over.) `finish()` takes a last one and gives the state connection its own checkpoints back.
 *
 * Durability is SQLite's: a passive checkpoint flushes the WAL before it copies, never stops a
 * writer, and a commit is as durable as its own `synchronous` says. Should the thread fail, the
 * state connection takes its checkpoints again and the merge goes on (`failure` says why).
 */
export class WalCheckpoints {
  readonly #db: StateDb;
  readonly #worker: Worker;
  readonly #pages: number;
  /** The state connection's wal_autocheckpoint, given back at the end. */
  readonly #autocheckpoint: number;
  #answer: ((a: Answer) => void) | undefined;
  /** Chunks between two checkpoints, and since the last one. */
  #every = FIRST_EVERY;
  #chunks = 0;
  /** The thread has its connection open (and the state connection's checkpoints are off). */
  #ready = false;
  #ended = false;
  #closing = false;
  /** Why the thread stopped early, if it did (checkpoints are the commits' again since). */
  failure: Error | undefined;
  /** Settles once the thread has taken the checkpoints over (true) or could not (false). */
  readonly started: Promise<boolean>;
  #started: (ready: boolean) => void = () => undefined;

  private constructor(db: StateDb, pages: number) {
    this.#db = db;
    this.#pages = pages;
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
  }

  /**
   * Starts the thread; undefined for a database without a WAL file (in memory). `pages`: WAL
   * pages between two checkpoints (default CHECKPOINT_PAGES).
   */
  static start(db: StateDb, options: { pages?: number } = {}): WalCheckpoints | undefined {
    if (db.memory || db.pragma('journal_mode', { simple: true }) !== 'wal') return undefined;
    return new WalCheckpoints(db, options.pages ?? CHECKPOINT_PAGES);
  }

  /** After a merge transaction: every few chunks, waits (the loop does not) for a checkpoint. */
  async afterChunk(): Promise<void> {
    if (this.#ended || !this.#ready || ++this.#chunks < this.#every) return;
    const frames = await this.#checkpoint();
    // The chunks since the last one wrote `frames` pages: so many chunks write `pages`.
    if (frames > 0) {
      this.#every = Math.max(1, Math.min(256, Math.round((this.#pages * this.#chunks) / frames)));
    }
    this.#chunks = 0;
  }

  /** Copies every frame left, ends the thread and gives the connection its checkpoints back. */
  async finish(): Promise<void> {
    if (this.#ready && !this.#ended) {
      await this.#checkpoint();
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

  /** A checkpoint of every frame in the WAL; resolves to how many there were (0: it failed). */
  async #checkpoint(): Promise<number> {
    const a = await this.#ask({ checkpoint: true });
    return 'log' in a ? a.log : 0;
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
