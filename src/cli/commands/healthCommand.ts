import type { Config } from '../../config/index.ts';
import { checkHealth, pingRedisUrl } from '../../daemon/healthCheck.ts';
import { HEARTBEAT_STALE_MS } from '../../daemon/heartbeat.ts';
import { checkLive, type LiveReport } from '../../daemon/liveCheck.ts';
import { readLiveFacts } from '../../daemon/liveFacts.ts';
import { type LiveFacts, readStatus } from '../../daemon/status.ts';
import { healthView } from '../../daemon/views.ts';
import type { StateDb } from '../../state/db.ts';
import { KeyValueStore } from '../../state/kv.ts';
import type { Heartbeat } from '../../state/kvKeys.ts';
import { describeHolder, writerLockState } from '../../state/lock/writerLock.ts';
import { commandConfig, parseCommand, println, printText } from '../args.ts';
import { type Command, ExitCode, nowOf } from '../command.ts';
import { openExistingState } from '../state.ts';

const usage = `Usage: supplier-sync health [--live] [--json]

Exits 0 when the daemon is healthy (ready): the disk holding the data dir and state.db is not
full, Redis answers, state.db opens and the daemon's heartbeat is recent (under
${HEARTBEAT_STALE_MS / 1000} s). Otherwise exits 1 and says why. For readiness checks.

--live exits 0 as long as the daemon's process answers: it holds the data dir's writer lock
and its heartbeat (in state.db, or in the heartbeat file beside it, written while state.db
cannot be) is recent; with the disk full, holding the lock is enough. Redis is not asked. For
liveness checks: a restart mends a stuck process, never a full disk.

Options:
  --live   liveness only (see above)
  --json   machine-readable output
  --help   this text`;

export const healthCommand: Command = {
  name: 'health',
  usage,
  async run(ctx) {
    const { values, configFlags } = parseCommand(ctx, {
      live: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    });
    const config = commandConfig(ctx, configFlags);
    const now = nowOf(ctx);
    const live = await readLiveFacts(config.dataDir, now);
    if (values.live) {
      const report = liveness(config, now, live);
      if (values.json) println(ctx.stdout, JSON.stringify(healthView(report)));
      else if (report.live) printText(ctx.stdout, `live: ${report.reason}`);
      else printText(ctx.stderr, `not live: ${report.reason}`);
      return report.live ? ExitCode.ok : ExitCode.failure;
    }
    const report = await checkHealth({
      pingRedis: () => pingRedisUrl(config),
      readStatus: () => {
        const db = openExistingState(config);
        try {
          return readStatus(db, config, now, live);
        } finally {
          db.close();
        }
      },
      disk: live.disk,
      now: () => now,
    });
    if (values.json) println(ctx.stdout, JSON.stringify(healthView(report)));
    else if (report.healthy) printText(ctx.stdout, 'healthy');
    else printText(ctx.stderr, `unhealthy: ${report.problems.join('; ')}`);
    return report.healthy ? ExitCode.ok : ExitCode.failure;
  },
};

/**
 * `--live`: the heartbeats (state.db's, when it opens: on a full disk with no daemon running it
 * may not; the heartbeat file's) and the writer lock, looked at from here.
 */
function liveness(config: Config, now: number, live: LiveFacts): LiveReport {
  let db: StateDb | undefined;
  try {
    db = openExistingState(config);
  } catch {
    // No state.db, or one that cannot be opened: the heartbeat file and the lock still tell.
  }
  try {
    const state = db;
    let beat: Heartbeat | null = null;
    try {
      beat =
        state === undefined ? null : (new KeyValueStore(state).get('daemon.heartbeat') ?? null);
    } catch {
      // unreadable: the file's beat counts alone
    }
    return checkLive({
      beats: [beat, live.beat],
      disk: live.disk,
      lock: () => {
        try {
          const s = writerLockState(config.dataDir, state);
          if (!s.held) return { held: false };
          // Not named (state.db unreadable, or a daemon taking it this moment): a daemon's.
          return {
            held: true,
            daemon: s.holder === undefined || s.holder.role === 'daemon',
            holder: describeHolder(s.holder),
          };
        } catch {
          return undefined;
        }
      },
      now,
    });
  } finally {
    db?.close();
  }
}
