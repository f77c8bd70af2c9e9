import { once } from 'node:events';
import { startDaemon } from '../../daemon/daemon.ts';
import { createLogger } from '../../log/logger.ts';
import { commandConfig, parseCommand } from '../args.ts';
import { type Command, ExitCode } from '../command.ts';

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
    if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
    await daemon.stop(String(ctx.signal.reason ?? 'signal'));
    log.flush();
    return ExitCode.ok;
  },
};
