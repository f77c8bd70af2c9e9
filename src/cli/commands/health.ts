import { HEARTBEAT_STALE_MS, readHeartbeat } from '../../daemon/heartbeat.ts';
import { redisConnection } from '../../jobs/connection.ts';
import { commandConfig, parseCommand, println } from '../args.ts';
import { type Command, ExitCode } from '../command.ts';
import { openExistingState } from '../state.ts';

const usage = `Usage: supplier-sync health [--json]

Exits 0 when the daemon is healthy: Redis answers, state.db opens and the daemon's heartbeat is
recent (under ${HEARTBEAT_STALE_MS / 1000} s). Otherwise exits 1 and says why. For container health checks.

Options:
  --json   machine-readable output
  --help   this text`;

export const healthCommand: Command = {
  name: 'health',
  summary: 'exit 0 when the daemon is healthy (container health checks)',
  usage,
  async run(ctx) {
    const { values, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
    });
    const config = commandConfig(ctx, configFlags);
    const problems: string[] = [];

    const redis = redisConnection(config.redisUrl, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      retryStrategy: () => null,
    });
    redis.on('error', () => {});
    try {
      await redis.connect();
      if ((await redis.ping()) !== 'PONG') problems.push('redis: no PONG');
    } catch (err) {
      problems.push(`redis: ${(err as Error).message}`);
    } finally {
      redis.disconnect();
    }

    let heartbeatAge: number | null = null;
    try {
      const db = openExistingState(config);
      try {
        const beat = readHeartbeat(db);
        if (beat === undefined) problems.push('daemon: no heartbeat yet');
        else {
          heartbeatAge = Date.now() - beat.at;
          if (heartbeatAge > HEARTBEAT_STALE_MS)
            problems.push(`daemon: last heartbeat ${Math.round(heartbeatAge / 1000)} s ago`);
        }
      } finally {
        db.close();
      }
    } catch (err) {
      problems.push(`state.db: ${(err as Error).message}`);
    }

    const healthy = problems.length === 0;
    if (values.json)
      println(ctx.stdout, JSON.stringify({ healthy, problems, heartbeatAgeMs: heartbeatAge }));
    else
      println(
        healthy ? ctx.stdout : ctx.stderr,
        healthy ? 'healthy' : `unhealthy: ${problems.join('; ')}`,
      );
    return healthy ? ExitCode.ok : ExitCode.failure;
  },
};
