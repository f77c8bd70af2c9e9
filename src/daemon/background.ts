import type { Config } from '../config/index.ts';
import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../log/logger.ts';
import { checkpointWal, type StateDb } from '../state/db.ts';
import { startIdleCompaction } from './compaction.ts';
import type { DiskWatch } from './diskWatch.ts';
import { type RunningHeartbeat, startHeartbeat } from './heartbeat.ts';
import type { HeartbeatFile } from './heartbeatFile.ts';
import { startStaleWatch } from './staleWatch.ts';

/** How often a stale sync is looked for; also the gap between two `sync.stale` warnings. */
const STALE_CHECK_MS = 15 * 60_000;
/**
 * How often state.db's write-ahead log is checkpointed on a timer (besides SQLite's own
 * checkpoint when it passes 1,000 pages): a log that grew while a reader held it back is copied
 * into state.db once the reader is gone, so that the next write starts it again from the top and
 * cuts it to its bound (state/db.ts, WAL_SIZE_LIMIT_BYTES).
 */
const CHECKPOINT_EVERY_MS = 60_000;

/**
 * The daemon's own timers: the heartbeat `status` and `health` read (each beat a look at the disk,
 * written to the heartbeat file too), the write-ahead log's checkpoint, memory given back once
 * idle (needs --expose-gc, src/cli/nodeFlags.ts; a no-op without it), and the stale-sync watch.
 * `heartbeat.beat()` writes the heartbeat at once (after a clock jump).
 */
export function startBackground(parts: {
  readonly config: Pick<Config, 'staleAfterMs'>;
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  readonly disk?: DiskWatch;
  readonly heartbeatFile?: HeartbeatFile;
}): { readonly heartbeat: RunningHeartbeat; stop(): void } {
  const { db, log, clock } = parts;
  const heartbeat = startHeartbeat(
    db,
    clock.now,
    (err) => log.warn({ event: 'heartbeat.failed', err }, 'could not write the heartbeat'),
    { disk: parts.disk, file: parts.heartbeatFile },
  );
  const checkpoint = setInterval(() => {
    try {
      checkpointWal(db);
    } catch (err) {
      parts.disk?.sawError(err);
    }
  }, CHECKPOINT_EVERY_MS);
  checkpoint.unref();
  const compaction = startIdleCompaction({
    log,
    now: clock.now,
    // SQLite's page cache of the daemon's connection, filled by the last sync: read again from
    // the file (or the OS's cache of it) when next needed.
    alsoRelease: () => db.pragma('shrink_memory'),
  });
  const staleWatch = startStaleWatch({
    db,
    log,
    staleAfterMs: parts.config.staleAfterMs,
    everyMs: STALE_CHECK_MS,
    now: clock.now,
  });
  return {
    heartbeat,
    stop() {
      heartbeat.stop();
      clearInterval(checkpoint);
      staleWatch.stop();
      compaction.stop();
    },
  };
}
