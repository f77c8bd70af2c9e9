import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkCombinations } from './checks.ts';
import { ConfigError } from './configError.ts';
import { jsonSyntaxProblem } from './jsonSyntax.ts';
import { readSecretFile } from './secretFile.ts';
import { maskUrlPassword } from './secrets.ts';
import { type Config, type SettingName, settings } from './settings.ts';

export interface ConfigSources {
  /** Settings given as command-line flags, keyed by setting key (see flagsToKeys). */
  readonly flags?: Readonly<Record<string, string>>;
  readonly env?: NodeJS.ProcessEnv;
  /** Path of a JSON config file (`--config FILE`). */
  readonly configFile?: string | undefined;
  /** Settings the calling command cannot do without. */
  readonly require?: readonly SettingName[];
  /** Resolves relative paths; the process's working directory by default. */
  readonly cwd?: string;
}

/** Environment variables with these prefixes must be settings: a typo there is an error. */
const OWN_PREFIXES = ['SUPPLIER_', 'SYNC_'];
const byKey = new Map(Object.entries(settings).map(([name, s]) => [s.key, name as SettingName]));

/**
 * Reads flags, environment, a JSON file and the built-in defaults, highest first; validates every
 * value; returns one frozen object. Throws ConfigError naming the first key at fault.
 */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? {};
  const cwd = sources.cwd ?? process.cwd();
  const fileValues = sources.configFile ? readConfigFile(resolve(cwd, sources.configFile)) : {};

  for (const key of Object.keys(env)) {
    if (OWN_PREFIXES.some((p) => key.startsWith(p)) && !byKey.has(key) && key !== 'SYNC_CONFIG') {
      throw new ConfigError(key, 'unknown setting (see config/default.json for the known ones)');
    }
  }
  for (const key of Object.keys(sources.flags ?? {})) {
    if (!byKey.has(key)) throw new ConfigError(key, 'unknown setting');
  }

  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(settings)) {
    const raw = sources.flags?.[s.key] ?? nonEmpty(env[s.key]) ?? fileValues[s.key];
    if (raw === undefined) {
      out[name] = s.default;
      continue;
    }
    const parsed = s.schema.safeParse(raw);
    if (!parsed.success) {
      throw new ConfigError(s.key, parsed.error.issues[0]?.message ?? 'invalid value');
    }
    out[name] = parsed.data;
  }

  out.password = resolvePassword(
    out.password as string | undefined,
    out.passwordFile as string | undefined,
    cwd,
  );
  out.dataDir = resolve(cwd, out.dataDir as string);
  if (typeof out.snapshotDb === 'string') out.snapshotDb = resolve(cwd, out.snapshotDb);
  if (typeof out.inboxProfilesFile === 'string')
    out.inboxProfilesFile = resolve(cwd, out.inboxProfilesFile);
  if (typeof out.stockRulesFile === 'string') out.stockRulesFile = resolve(cwd, out.stockRulesFile);
  if (typeof out.consolePasswordFile === 'string')
    out.consolePasswordFile = resolve(cwd, out.consolePasswordFile);
  if (typeof out.notifyWebhookSecretFile === 'string')
    out.notifyWebhookSecretFile = resolve(cwd, out.notifyWebhookSecretFile);
  out.configFile = sources.configFile ? resolve(cwd, sources.configFile) : undefined;

  for (const name of sources.require ?? []) {
    if (out[name] === undefined) {
      const key = name === 'password' ? 'SUPPLIER_PASSWORD' : settings[name].key;
      throw new ConfigError(key, 'required but not set');
    }
  }
  const config = Object.freeze(out) as Config;
  checkCombinations(config);
  return config;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      '--config',
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Never the engine's message: it quotes the text, which may hold a password.
    throw new ConfigError('--config', `${path}: ${jsonSyntaxProblem(text)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('--config', `${path} must hold one JSON object of settings`);
  }
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (key.startsWith('//')) continue; // comments
    if (!byKey.has(key)) throw new ConfigError(key, `unknown setting in ${path}`);
    if (value !== null) values[key] = value;
  }
  return values;
}

function resolvePassword(password: string | undefined, file: string | undefined, cwd: string) {
  if (file === undefined) return password;
  if (password !== undefined) {
    throw new ConfigError(
      'SUPPLIER_PASSWORD_FILE',
      'set together with SUPPLIER_PASSWORD; set only one',
    );
  }
  const path = resolve(cwd, file);
  const value = readSecretFile('SUPPLIER_PASSWORD_FILE', path);
  if (value.trim() === '') throw new ConfigError('SUPPLIER_PASSWORD_FILE', `${path} is empty`);
  return value;
}

/** The flag spelling of a setting key: SUPPLIER_API_URL → --supplier-api-url. */
export function flagName(key: string): string {
  return `--${key.toLowerCase().replaceAll('_', '-')}`;
}

/**
 * Takes the config flags (`--config FILE` and any `--setting-name VALUE` / `--setting-name=VALUE`)
 * out of an argument list, leaving the command's own arguments in order.
 */
export function extractConfigFlags(argv: readonly string[]): {
  flags: Record<string, string>;
  configFile: string | undefined;
  rest: string[];
} {
  const flagToKey = new Map([...byKey.keys()].map((k) => [flagName(k), k]));
  const flags: Record<string, string> = {};
  let configFile: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const key = name === '--config' ? '--config' : flagToKey.get(name);
    if (key === undefined) {
      rest.push(arg);
      continue;
    }
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined) throw new ConfigError(name, 'needs a value');
    if (key === '--config') configFile = value;
    else flags[key] = value;
  }
  return { flags, configFile, rest };
}

/**
 * Settings as printable pairs (for `daemon.started`): secret settings left out, and the password
 * of every URL setting masked (`redis://:***@redis:6379`).
 */
export function describeConfig(config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(settings)) {
    if (s.secret) continue;
    const value = config[name as SettingName];
    out[s.key] = typeof value === 'string' ? maskUrlPassword(value) : value;
  }
  return out;
}
