import { Writable } from 'node:stream';
import { main } from '../../src/cli/main.ts';
import { LineWatch, type LogLine } from './logLines.ts';

export interface CliResult {
  /** The exit code `main` resolved to (what the process would exit with). */
  readonly code: number;
  /** stdout and stderr as one text, in the order written (as a terminal shows them). */
  readonly output: string;
  readonly stdout: string;
  readonly stderr: string;
  /** The JSON lines among them, parsed. */
  readonly lines: LogLine[];
}

/** A stream that keeps what is written, at once (write calls back synchronously). */
function sink(onText: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      onText(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      callback();
    },
  });
}

/**
 * Runs one command line in this process, through the same `main` as `bin/supplier-sync` (argument
 * parsing, configuration from `env` only, exit codes), with stdout and stderr captured.
 * `signal` stands for SIGTERM/SIGINT of a long-running command; `now` is the clock the command
 * reads "now" from (the harness gives the daemon's).
 */
export async function runCliInProcess(
  args: readonly string[],
  env: Record<string, string | undefined>,
  signal: AbortSignal = new AbortController().signal,
  now?: () => number,
): Promise<CliResult> {
  let output = '';
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    env,
    stdout: sink((t) => {
      output += t;
      stdout += t;
    }),
    stderr: sink((t) => {
      output += t;
      stderr += t;
    }),
    signal,
    ...(now === undefined ? {} : { now }),
  });
  const watch = new LineWatch();
  for (const line of output.split('\n')) if (line !== '') watch.push(line);
  return { code, output, stdout, stderr, lines: watch.lines };
}
