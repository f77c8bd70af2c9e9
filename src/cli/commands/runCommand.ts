import { once } from 'node:events';
import { getHeapStatistics } from 'node:v8';
import { startDaemon } from '../../daemon/daemon.ts';
import { createLogger } from '../../log/logger.ts';
import { commandConfig, parseCommand } from '../args.ts';
import { type Command, ExitCode } from '../command.ts';
import { DAEMON_NODE_ENV, missingNodeEnv, missingNodeFlags } from '../nodeFlags.ts';
import { launchOf } from '../relaunch.ts';

const usage = `Usage: supplier-sync run [--config FILE] [--setting-name VALUE ...]

Runs the daemon: inbox watcher, snapshot source, schedules and workers, until SIGTERM or SIGINT,
then stops gracefully (the call in flight finishes; exit 0 within 10 s).
Needs SUPPLIER_API_URL, SUPPLIER_EMAIL and SUPPLIER_PASSWORD (or SUPPLIER_PASSWORD_FILE).
Logs are pino JSON lines on stdout (pretty on a terminal).

Options:
  --help   this text`;

export const runCommand: Command = {
  name: 'run',
  usage,
  async run(ctx) {
    const { configFlags } = parseCommand(ctx, {});
    const config = commandConfig(ctx, configFlags, ['apiUrl', 'email', 'password']);
    const log = createLogger({ level: config.logLevel });
    // A safety net: a promise nobody awaited must not take the daemon down; it is logged.
    process.on('unhandledRejection', (err) => {
      log.error(
        { event: 'daemon.unhandled_rejection', err },
        'unhandled rejection (the daemon goes on)',
      );
    });
    const daemon = await startDaemon({ config, log });
    // Once started: a start refused (exit 78, one line naming the problem) says nothing more.
    logNodeFlags(log, ctx.env);
    if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
    await daemon.stop(String(ctx.signal.reason ?? 'signal'));
    log.flush();
    return ExitCode.ok;
  },
};

/**
 * `daemon.node_flags`: the Node flags the daemon runs with, and whether it re-executed itself to
 * get them (relaunch.ts); a warning naming those it lacks when it could not.
 */
function logNodeFlags(log: ReturnType<typeof createLogger>, env: NodeJS.ProcessEnv): void {
  const launch = launchOf();
  const missing = missingNodeFlags(process.execArgv, env.NODE_OPTIONS);
  const missingEnv = Object.keys(missingNodeEnv(env));
  const fields = {
    event: 'daemon.node_flags',
    pid: process.pid,
    execArgv: process.execArgv,
    relaunched: launch?.outcome === 'relaunched',
    missing,
    env: Object.fromEntries(Object.keys(DAEMON_NODE_ENV).map((k) => [k, env[k] ?? null])),
    missingEnv,
    heapLimitMiB: Math.round(getHeapStatistics().heap_size_limit / 1048576),
  };
  if (missing.length + missingEnv.length > 0 && launch !== undefined)
    log.warn(
      { ...fields, error: launch.error },
      `Node runs the daemon without ${[...missingEnv.map((k) => `${k}=${DAEMON_NODE_ENV[k]}`), ...missing].join(' ')}: memory is not bounded as documented (start it with them: docs/deployment.md)`,
    );
  else log.info(fields, `Node flags: ${process.execArgv.join(' ') || 'none on the command line'}`);
}
