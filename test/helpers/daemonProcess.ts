import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = join(import.meta.dirname, '..', '..');
export const NODE = join(ROOT, 'node_modules', '.bin', 'node');
export const CLI = join(ROOT, 'src', 'cli', 'main.ts');

export type LogLine = Record<string, unknown> & { event?: string; level?: string; msg?: string };

/** A real `supplier-sync` child process whose JSON log lines a test can wait on. */
export interface CliProcess {
  readonly child: ChildProcess;
  readonly lines: LogLine[];
  /** Everything written to stdout and stderr, as text. */
  output(): string;
  /** Resolves with the first line (already seen or coming) that matches. */
  waitFor(match: (l: LogLine) => boolean, timeoutMs?: number, what?: string): Promise<LogLine>;
  waitForEvent(event: string, timeoutMs?: number): Promise<LogLine>;
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

/** Runs `node src/cli/main.ts ARGS` with the given environment (added to a clean PATH/HOME). */
export function runCli(args: readonly string[], env: Record<string, string>): CliProcess {
  const child = spawn(NODE, [CLI, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      LOG_LEVEL: 'debug',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const waiters = new Set<() => void>();
  const onLine = (text: string) => {
    raw.push(text);
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object') lines.push(parsed as LogLine);
    } catch {
      // not a JSON line (help text, stderr): kept in raw only
    }
    for (const w of waiters) w();
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      for (const w of waiters) w();
      resolve(code ?? signal ?? 'unknown');
    });
  });

  const waitFor = (match: (l: LogLine) => boolean, timeoutMs = 15_000, what = 'a log line') =>
    new Promise<LogLine>((resolve, reject) => {
      let seen = 0;
      const check = () => {
        for (; seen < lines.length; seen++) {
          const l = lines[seen]!;
          if (match(l)) {
            cleanup();
            resolve(l);
            return;
          }
        }
        if (child.exitCode !== null || child.signalCode !== null) {
          cleanup();
          reject(new Error(`process exited before ${what}; output:\n${raw.slice(-40).join('\n')}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what}; output:\n${raw.slice(-40).join('\n')}`,
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  return {
    child,
    lines,
    output: () => raw.join('\n'),
    waitFor,
    waitForEvent: (event, timeoutMs) =>
      waitFor((l) => l.event === event, timeoutMs, `event ${event}`),
    exited,
    kill: (signal = 'SIGTERM') => {
      child.kill(signal);
    },
  };
}

/** Runs a CLI command to the end; resolves with its exit code and output. */
export async function runCliToEnd(
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
) {
  const p = runCli(args, env);
  const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, output: p.output(), lines: p.lines };
}
