import { type ParseArgsConfig, parseArgs } from 'node:util';
import {
  type Config,
  configSecrets,
  extractConfigFlags,
  loadConfig,
  type SettingName,
} from '../config/index.ts';
import { escapeControls } from '../domain/controlChars.ts';
import { registerSecret } from '../log/redact.ts';
import type { CommandContext } from './command.ts';
import { UsageError } from './usage.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedCommand<O extends Options> {
  readonly values: ReturnType<
    typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>
  >['values'];
  readonly positionals: string[];
}

/**
 * Parses a command's own options strictly (an unknown option is a usage error), after taking out
 * the configuration flags that every command accepts (`--config FILE`, `--setting-name VALUE`).
 */
export function parseCommand<O extends Options>(
  ctx: CommandContext,
  options: O,
): ParsedCommand<O> & { readonly configFlags: ReturnType<typeof extractConfigFlags> } {
  const configFlags = extractConfigFlags(ctx.argv);
  try {
    const parsed = parseArgs({
      args: configFlags.rest,
      options,
      allowPositionals: true,
      strict: true,
    });
    return { values: parsed.values, positionals: parsed.positionals, configFlags };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * The configuration for a command, from its flags, the environment and `--config FILE`. Its
 * secrets (the password, URL passwords) are registered with the scrubber at once, so that no
 * error a command prints can quote them.
 */
export function commandConfig(
  ctx: CommandContext,
  configFlags: ReturnType<typeof extractConfigFlags>,
  require: readonly SettingName[] = [],
): Config {
  const config = loadConfig({
    flags: configFlags.flags,
    env: ctx.env,
    configFile: configFlags.configFile ?? ctx.env.SYNC_CONFIG,
    require,
  });
  for (const secret of configSecrets(config)) registerSecret(secret);
  return config;
}

/** Writes one line to a stream (JSON, usage texts: text this program wrote). */
export function println(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${text}\n`);
}

/**
 * Writes one line for a person to read: a line of a command's text output, which may name what
 * came from outside (inbox names, rows, a pause reason, the portal's answers), with every control
 * character escaped (domain/controlChars.ts), so that a name cannot drive the terminal or forge a
 * line. `--json` output goes through println: JSON escapes them itself.
 */
export function printText(stream: NodeJS.WritableStream, line = ''): void {
  println(stream, escapeControls(line));
}
