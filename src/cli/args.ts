import { type ParseArgsConfig, parseArgs } from 'node:util';
import {
  type Config,
  configSecrets,
  extractConfigFlags,
  loadConfig,
  type SettingName,
} from '../config/index.ts';
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

/** Writes one line to a stream. */
export function println(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${text}\n`);
}
