import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { ConfigError } from './configError.ts';
import { jsonSyntaxProblem } from './jsonSyntax.ts';

/**
 * A JSON settings file the daemon reads at start and again whenever it changes: the inbox
 * profiles (INBOX_PROFILES_FILE) now, the stock rules (STOCK_RULES_FILE) later — one mechanism for
 * both. At start an unreadable or invalid file is a ConfigError (exit 78) naming the setting and
 * the problem. Afterwards an invalid edit is logged as `<name>.invalid` (warn) and the last good
 * value stays; a valid one is logged as `<name>.reloaded` and taken.
 *
 * Changes are found by reading the file every `intervalMs` (2 s by default) and comparing its
 * bytes with the last ones read: that sees an edit in place and a replacement by rename alike, on
 * any file system (bind mounts and network shares included, where file-system events fail), at the
 * cost of reading a small file every few seconds. A change that does not parse is only reported
 * once the same bytes are read twice in a row, so a file caught half-written by an editor is not
 * logged as invalid: an invalid edit is logged within two intervals, a valid one taken within one.
 */
export interface WatchedFileOptions<T> {
  /** The event prefix: `profiles` logs `profiles.invalid`, `profiles.reloaded`. */
  readonly name: string;
  /** The setting that names the file, for errors (`INBOX_PROFILES_FILE`). */
  readonly settingKey: string;
  readonly path: string;
  readonly schema: z.ZodType<T, unknown>;
  /** One line for a schema error (naming the item and field at fault); the first issue by default. */
  readonly describe?: (error: z.ZodError, input: unknown) => string;
  readonly log: WatchLog;
  /** How often the file is read, in milliseconds (default 2000). */
  readonly intervalMs?: number;
  /** Called with the new value after a valid change. */
  readonly onChange?: (value: T) => void;
}

/** The two logger methods used (a pino Logger fits). */
export interface WatchLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Largest settings file read: these are hand-written JSON files of a few KB. */
const MAX_BYTES = 1024 * 1024;

export interface WatchedFile<T> {
  /** The last good value. */
  current(): T;
  /**
   * Reads the file now, as the next interval would (after a read already under way): an edit is
   * taken or, read the same twice, reported at once instead of within seconds.
   */
  check(): Promise<void>;
  stop(): void;
}

/**
 * Loads the file now (throws ConfigError when it is missing or invalid), then watches it until
 * `stop()`.
 */
export function watchJsonFile<T>(options: WatchedFileOptions<T>): WatchedFile<T> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(options.path);
  } catch (err) {
    throw new ConfigError(
      options.settingKey,
      `cannot read ${options.path}: ${(err as NodeJS.ErrnoException).code ?? err}`,
    );
  }
  const first = parseJsonFile(bytes, options);
  if (!first.ok) throw new ConfigError(options.settingKey, `${options.path}: ${first.problem}`);
  let value = first.value;
  let lastRead: Seen = { bytes }; // the file as last read and settled
  let suspect: Seen | undefined; // a version that did not parse, not yet reported
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const check = async () => {
    let now: Seen;
    try {
      now = { bytes: await readFile(options.path) };
    } catch (err) {
      // Gone or unreadable: an editor between unlink and rename, or a real mistake. Reported
      // like an invalid edit, once seen twice in a row.
      now = { error: `cannot read ${options.path}: ${(err as NodeJS.ErrnoException).code ?? err}` };
    }
    if (sameAs(now, lastRead)) {
      suspect = undefined;
      return;
    }
    const parsed: Parsed<T> =
      'bytes' in now ? parseJsonFile(now.bytes, options) : { ok: false, problem: now.error };
    if (parsed.ok) {
      lastRead = now;
      suspect = undefined;
      value = parsed.value;
      options.log.info(
        { event: `${options.name}.reloaded`, file: options.path },
        `${options.settingKey}: ${options.path} re-read`,
      );
      options.onChange?.(value);
      return;
    }
    if (suspect === undefined || !sameAs(now, suspect)) {
      suspect = now; // reported only if the next read finds it the same
      return;
    }
    suspect = undefined;
    lastRead = now; // reported once, not at every read
    options.log.warn(
      { event: `${options.name}.invalid`, file: options.path, problem: parsed.problem },
      `${options.settingKey}: ${parsed.problem}; the last good ${options.name} stay`,
    );
  };

  // One read at a time, in order: a read asked for while the timer's is under way comes after it.
  let reads: Promise<void> = Promise.resolve();
  const checkInTurn = () => {
    // check reports everything itself; nothing is to escape the loop
    reads = reads.then(check).catch(() => {});
    return reads;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      checkInTurn().finally(schedule);
    }, options.intervalMs ?? 2000);
    timer.unref();
  };
  schedule();

  return {
    current: () => value,
    check: checkInTurn,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** One read of the file: its bytes, or why it could not be read. */
type Seen = { readonly bytes: Buffer } | { readonly error: string };

function sameAs(a: Seen, b: Seen): boolean {
  if ('bytes' in a) return 'bytes' in b && a.bytes.equals(b.bytes);
  return 'error' in b && a.error === b.error;
}

/** Reads one version of the file: JSON, then the schema. */
export function parseJsonFile<T>(
  bytes: Buffer,
  options: Pick<WatchedFileOptions<T>, 'schema' | 'describe'>,
): Parsed<T> {
  if (bytes.length > MAX_BYTES) return { ok: false, problem: `larger than ${MAX_BYTES} bytes` };
  let input: unknown;
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    input = JSON.parse(text);
  } catch {
    // Never the engine's message: it quotes the text, which may hold a secret.
    return { ok: false, problem: jsonSyntaxProblem(text) };
  }
  const result = options.schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const problem = options.describe
    ? options.describe(result.error, input)
    : (result.error.issues[0]?.message ?? 'invalid');
  return { ok: false, problem };
}
