import { PassThrough } from 'node:stream';
import { createLogger, type Logger } from '../../src/log/logger.ts';

export interface CapturedLog {
  readonly log: Logger;
  /** Every line written so far, parsed. */
  lines(): Array<Record<string, unknown> & { event?: string; level?: string; msg?: string }>;
  events(name: string): Array<Record<string, unknown>>;
}

/** A real pino logger whose JSON lines the test reads back. */
export function captureLog(): CapturedLog {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const log = createLogger({ destination: stream, pretty: false, level: 'debug' });
  const lines = () =>
    text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown> & { event?: string });
  return { log, lines, events: (name) => lines().filter((l) => l.event === name) };
}

/** A writable that keeps what is written, for commands run in-process. */
export function textSink(): { stream: PassThrough; text(): string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { stream, text: () => text };
}
