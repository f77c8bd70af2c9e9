import { ConfigError } from '../config/index.ts';
import { VERSION } from '../config/version.ts';
import { escapeControls } from '../domain/controlChars.ts';
import { scrubString } from '../log/redact.ts';
import { type Command, type CommandContext, ExitCode } from './command.ts';
import { commands } from './commands/index.ts';
import { UsageError } from './usage.ts';

const HELP = `supplier-sync — keeps the Supplier Portal in step with the ERP

Usage: supplier-sync <command> [options]
       supplier-sync --version

Commands:
${commands.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

Every command accepts --config FILE and any setting as a flag (SYNC_DATA_DIR → --sync-data-dir).
Run 'supplier-sync <command> --help' for a command's options.
Exit codes: 0 success, 1 failure at run time, 2 bad usage, 78 bad configuration.`;

/** Runs one command line; resolves to the exit code (main.ts is the process's entry point). */
export async function runCommandLine(
  argv: readonly string[],
  io: Omit<CommandContext, 'argv'>,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V') {
    io.stdout.write(`supplier-sync ${VERSION}\n`);
    return ExitCode.ok;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${HELP}\n`);
    return name === undefined ? ExitCode.usage : ExitCode.ok;
  }
  const entry = commands.find((c) => c.name === name);
  if (entry === undefined) {
    io.stderr.write(`supplier-sync: unknown command '${escapeControls(name)}'\n${HELP}\n`);
    return ExitCode.usage;
  }
  const command: Command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`${command.usage}\n`);
    return ExitCode.ok;
  }
  try {
    return await command.run({ ...io, argv: rest });
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr.write(
        `supplier-sync: configuration error: ${escapeControls(scrubString(err.message))}\n`,
      );
      return ExitCode.config;
    }
    if (err instanceof UsageError) {
      io.stderr.write(
        `supplier-sync ${command.name}: ${escapeControls(err.message)}\n${command.usage}\n`,
      );
      return ExitCode.usage;
    }
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`supplier-sync ${command.name}: ${escapeControls(scrubString(message))}\n`);
    return ExitCode.failure;
  }
}
