#!/usr/bin/env -S MALLOC_ARENA_MAX=1 node --max-semi-space-size=16 --expose-gc --max-old-space-size=128
import { realpathSync } from 'node:fs';
import { endQuietlyOnClosedPipe } from './closedPipe.ts';
import { type CommandContext, ExitCode } from './command.ts';
import { ensureDaemonFlags } from './relaunch.ts';

/**
 * The process's entry point. It loads next to nothing itself: a `run` started without the
 * daemon's Node flags re-executes first (relaunch.ts), before the commands' code is loaded.
 */

/** Runs one command line; resolves to the exit code. Exported for tests that run it in-process. */
export async function main(
  argv: readonly string[],
  io: Omit<CommandContext, 'argv'>,
): Promise<number> {
  const { runCommandLine } = await import('./program.ts');
  return runCommandLine(argv, io);
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === import.meta.filename;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  // `run` without Node's flags for the daemon: this process is replaced (same PID) by one with them.
  ensureDaemonFlags();
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) process.exit(ExitCode.failure); // a second Ctrl-C stops at once
    controller.abort(sig);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // `status | head -3`: the reader went away; stop as on a signal, without a word.
  endQuietlyOnClosedPipe([process.stdout, process.stderr], () => controller.abort('EPIPE'));
  const code = await main(process.argv.slice(2), {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    signal: controller.signal,
  });
  process.exitCode = code;
  // Commands close what they opened; a stray handle must not keep a finished command alive.
  setTimeout(() => process.exit(code), 2000).unref();
}
