import Database from 'better-sqlite3';

/**
 * Checkpoints run off the event loop while a long series of commits (a large merge, held rows
 * kept aside) writes state.db: started by inventory/apply/walCheckpoints.ts, which runs them in a
 * worker thread; the writer waits for one every few thousand pages (`afterChunk`).
 */
export interface BackgroundCheckpoints {
  afterChunk(): Promise<void>;
  finish(): Promise<void>;
  stop(): void;
}

/** A connection of its own to state.db that copies its write-ahead log into the database file. */
export interface WalCheckpointer {
  /** One passive checkpoint: frames in the WAL, and how many are now in the database file. */
  checkpoint(): { readonly log: number; readonly copied: number };
  close(): void;
}

/**
 * Opens state.db (at `path`) for checkpoints only — passive ones, which neither wait for nor stop
 * the writer. FULL, as the daemon's connection: a checkpoint flushes the WAL before it copies its
 * pages and the database file after. Used from a worker thread
 * (src/inventory/apply/checkpointWorker.ts), so that a large merge's checkpoints run off the
 * event loop.
 */
export function openWalCheckpointer(path: string): WalCheckpointer {
  const db = new Database(path, { fileMustExist: true });
  db.pragma('synchronous = FULL');
  const statement = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  return {
    checkpoint() {
      const r = statement.get() as { busy: number; log: number; checkpointed: number };
      return { log: r.log, copied: r.checkpointed };
    },
    close: () => db.close(),
  };
}
