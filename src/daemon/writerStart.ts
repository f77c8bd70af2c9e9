import type { ActionDeps } from '../actions/operator.ts';
import { type Config, ConfigError } from '../config/index.ts';
import { withTimeout } from '../domain/timeout.ts';
import type { Nudges } from '../jobs/nudges.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { describeHolder, type WriterLock, waitForWriterLock } from '../state/lock/writerLock.ts';

/** Where a start keeps the writer lock it took (a start that fails half way lets go of it). */
export interface TakenLock {
  lock?: WriterLock;
}

/** Runs a start that keeps its lock in `taken`; when it fails, the lock is let go. */
export async function unlockingOnFailure<T>(start: (taken: TakenLock) => Promise<T>): Promise<T> {
  const taken: TakenLock = {};
  try {
    return await start(taken);
  } catch (err) {
    taken.lock?.release();
    throw err;
  }
}

/** How long a start waits for a command working alone (`release` …) to let go of the lock. */
const COMMAND_WAIT_MS = 60_000;
/** How long a start tries while another daemon holds it (a command's probe holds it a moment). */
const DAEMON_WAIT_MS = 2000;

/**
 * The daemon's writer lock on its data dir (src/state/lock/writerLock.ts), taken before anything
 * is written. Held by another daemon: a ConfigError naming it (exit 78), state.db closed. Held by
 * a command working alone: waited for, up to a minute.
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
  db.close();
  throw new ConfigError(
    'SYNC_DATA_DIR',
    `${dataDir} is in use: ${describeHolder(attempt.heldBy)} holds its writer lock (one daemon per data dir)`,
  );
}

/**
 * The operator actions as the daemon does them (its console's buttons, the commands' requests):
 * the work that follows is asked for over the daemon's own queues, bounded, as Redis may be away
 * (the periodic recovery finds the work anyway).
 */
export function daemonActions(
  deps: Pick<ActionDeps, 'db' | 'now'> & { readonly config: Config; readonly log: Logger },
  nudges: Nudges,
): ActionDeps & { readonly log: Logger } {
  return {
    ...deps,
    nudge: (ask) =>
      withTimeout(ask(nudges), 3000, 'nudge').then(
        () => true,
        () => false,
      ),
  };
}
