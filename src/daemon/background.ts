import type { Config } from '../config/index.ts';
import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { startIdleCompaction } from './compaction.ts';
import { startHeartbeat } from './heartbeat.ts';
import { startStaleWatch } from './staleWatch.ts';

/** How often a stale sync is looked for; also the gap between two `sync.stale` warnings. */
const STALE_CHECK_MS = 15 * 60_000;

/**
 * The daemon's own timers: the heartbeat `status` and `health` read, memory given back once idle
 * (needs --expose-gc, src/cli/nodeFlags.ts; a no-op without it), and the stale-sync watch.
 * `beat()` writes the heartbeat at once (after a clock jump).
 */
export function startBackground(parts: {
  readonly config: Pick<Config, 'staleAfterMs'>;
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
}): { stop(): void; beat(): void } {
  const { db, log, clock } = parts;
  const heartbeat = startHeartbeat(db, clock.now, (err) =>
    log.warn({ event: 'heartbeat.failed', err }, 'could not write the heartbeat'),
  );
  const compaction = startIdleCompaction({ log, now: clock.now });
  const staleWatch = startStaleWatch({
    db,
    log,
    staleAfterMs: parts.config.staleAfterMs,
    everyMs: STALE_CHECK_MS,
    now: clock.now,
  });
  return {
    beat: heartbeat.beat,
    stop() {
      heartbeat.stop();
      staleWatch.stop();
      compaction.stop();
    },
  };
}
