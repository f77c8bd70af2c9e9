import { checkHealth, pingRedisUrl } from '../../daemon/healthCheck.ts';
import { HEARTBEAT_STALE_MS } from '../../daemon/heartbeat.ts';
import { readStatus } from '../../daemon/status.ts';
import { healthView } from '../../daemon/views.ts';
import { commandConfig, parseCommand, println } from '../args.ts';
import { type Command, ExitCode, nowOf } from '../command.ts';
import { openExistingState } from '../state.ts';

const usage = `Usage: supplier-sync health [--json]

Exits 0 when the daemon is healthy: Redis answers, state.db opens and the daemon's heartbeat is
recent (under ${HEARTBEAT_STALE_MS / 1000} s). Otherwise exits 1 and says why. For container health checks.

Options:
  --json   machine-readable output
  --help   this text`;

export const healthCommand: Command = {
  name: 'health',
  usage,
  async run(ctx) {
    const { values, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
    });
    const config = commandConfig(ctx, configFlags);
    const report = await checkHealth({
      pingRedis: () => pingRedisUrl(config),
      readStatus: () => {
        const db = openExistingState(config);
        try {
          return readStatus(db, config, nowOf(ctx));
        } finally {
          db.close();
        }
      },
      now: () => nowOf(ctx),
    });
    if (values.json) println(ctx.stdout, JSON.stringify(healthView(report)));
    else if (report.healthy) println(ctx.stdout, 'healthy');
    else println(ctx.stderr, `unhealthy: ${report.problems.join('; ')}`);
    return report.healthy ? ExitCode.ok : ExitCode.failure;
  },
};
