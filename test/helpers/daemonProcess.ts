import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DAEMON_NODE_ENV, DAEMON_NODE_FLAGS } from '../../src/cli/nodeFlags.ts';
import { LineWatch, type LogLine, type LogView } from './logLines.ts';

export type { LogLine } from './logLines.ts';

const ROOT = join(import.meta.dirname, '..', '..');
export const NODE = join(ROOT, 'node_modules', '.bin', 'node');
export const CLI = join(ROOT, 'src', 'cli', 'main.ts');

/**
 * A real `supplier-sync` child process whose JSON log lines a test can wait on. Only for tests
 * where a process is the point (signals, exit codes, crashes): see docs/testing.md.
 */
export interface CliProcess extends LogView {
  readonly child: ChildProcess;
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Runs `node <the daemon's flags> src/cli/main.ts ARGS` with the given environment (added to a
 * clean PATH/HOME and the daemon's own, DAEMON_NODE_ENV): the flags and environment the installed
 * command and the image give every command (src/cli/nodeFlags.ts), so that a child runs as in
 * production, old-generation ceiling included.
 */
export function runCli(args: readonly string[], env: Record<string, string>): CliProcess {
  return runNode([...DAEMON_NODE_FLAGS, CLI, ...args], { ...DAEMON_NODE_ENV, ...env });
}

/**
 * `node NODE_ARGS` as runCli runs it (the same clean environment, its lines watched), for the
 * tests of how the process is started (`node dist/cli/main.js run` without Node's flags).
 */
export function runNode(nodeArgs: readonly string[], env: Record<string, string>): CliProcess {
  const child = spawn(NODE, nodeArgs, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      // The suite's compile cache (vitest.config.ts): a child starts in half the CPU time.
      ...(process.env.NODE_COMPILE_CACHE
        ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE }
        : {}),
      LOG_LEVEL: 'debug',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const watch = new LineWatch();
  const onLine = (text: string) => watch.push(text);
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      watch.end('process exited');
      resolve(code ?? signal ?? 'unknown');
    });
  });
  return {
    child,
    lines: watch.lines,
    output: () => watch.output(),
    waitFor: (match: (l: LogLine) => boolean, timeoutMs?: number, what?: string) =>
      watch.waitFor(match, timeoutMs, what),
    waitForEvent: (event: string, timeoutMs?: number) => watch.waitForEvent(event, timeoutMs),
    exited,
    kill: (signal = 'SIGTERM') => {
      child.kill(signal);
    },
  };
}

/** Runs a CLI command to the end as a child process; resolves with its exit code and output. */
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
