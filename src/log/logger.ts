import { type Logger, type LoggerOptions, pino } from 'pino';
import { scrub, scrubString, serializeError } from './redact.ts';

export type { Logger } from 'pino';

export interface LoggerSettings {
  readonly level?: string;
  /** Where lines go; stdout by default. Tests pass a stream to read the lines back. */
  readonly destination?: NodeJS.WritableStream;
  /** Human-readable lines; by default only when stdout is a terminal. */
  readonly pretty?: boolean;
  readonly base?: Record<string, unknown>;
}

/**
 * The daemon's logger: pino JSON lines, one `event` name per happening. Every object logged is
 * scrubbed of secret keys and values, errors are reduced to safe fields, and each finished line
 * is scrubbed once more before it is written.
 */
export function createLogger(settings: LoggerSettings = {}): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? 'info',
    base: settings.base ?? { service: 'supplier-sync' },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: (e: unknown) => (e instanceof Error ? serializeError(e) : scrub(e)) },
    formatters: {
      level: (label) => ({ level: label }),
      log: (obj) => scrub(obj) as Record<string, unknown>,
    },
    hooks: { streamWrite: (line) => scrubString(line) },
  };
  const pretty =
    settings.pretty ?? (settings.destination === undefined && process.stdout.isTTY === true);
  if (pretty) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return pino(options, settings.destination ?? pino.destination({ dest: 1, sync: true }));
}
