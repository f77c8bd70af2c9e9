import { ConfigError } from '../config/index.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { describeHolder, type WriterLock, waitForWriterLock } from '../state/lock/writerLock.ts';

/** How long a start waits for a command working alone (`release` …) to let go of the lock. */
const COMMAND_WAIT_MS = 60_000;
/** How long a start tries while another daemon holds it (a command's probe holds it a moment). */
const DAEMON_WAIT_MS = 2000;

/**
 * The daemon's writer lock on its data dir (src/state/lock/writerLock.ts), taken before anything
 * is written. Held by another daemon: a ConfigError naming it (exit 78). Held by a command
 * working alone: waited for, up to a minute.
 */
export async function lockDataDir(dataDir: string, db: StateDb, log: Logger): Promise<WriterLock> {
  const started = Date.now();
  let told = false;
  const attempt = await waitForWriterLock(dataDir, db, 'daemon', {
    waitMs: COMMAND_WAIT_MS,
    keepTrying: (holder) => {
      if (holder?.role === 'daemon') return Date.now() - started < DAEMON_WAIT_MS;
      if (!told) {
        told = true;
        log.info(
          { event: 'daemon.lock_waiting', holder: describeHolder(holder) },
          `waiting for ${describeHolder(holder)} to finish with ${dataDir}`,
        );
      }
      return true;
    },
  });
  if (attempt.lock) return attempt.lock;
  throw new ConfigError(
    'SYNC_DATA_DIR',
    `${dataDir} is in use: ${describeHolder(attempt.heldBy)} holds its writer lock (one daemon per data dir)`,
  );
}
