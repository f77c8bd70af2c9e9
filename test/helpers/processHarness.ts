import { renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.ts';
import { harnessEnv } from './daemonHarness.ts';
import { type CliProcess, runCli, runCliToEnd, runNode } from './daemonProcess.ts';
import { makeSandbox, type Sandbox } from './sandbox.ts';

/**
 * A simulator in this process, and `supplier-sync run` as a real child process against it: for
 * the tests where the process is the point (SIGKILL at a chosen moment, SIGTERM and the exit
 * code). Everything else uses the in-process harness (daemonHarness.ts), which is much faster.
 */
export interface ProcessHarness {
  readonly box: Sandbox;
  readonly sim: Simulator;
  readonly env: Record<string, string>;
  daemon: CliProcess | undefined;
  /**
   * Starts (or restarts) the daemon; resolves once it logged daemon.started. `nodeArgs` starts it
   * another way than `node <the daemon's flags> src/cli/main.ts run` (Node's arguments in full).
   */
  start(extraEnv?: Record<string, string>, nodeArgs?: readonly string[]): Promise<CliProcess>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | string>;
  /** Writes a file into inbox/ atomically (temp name, then rename), as an ERP should. */
  drop(name: string, content: string, mtime?: Date): void;
  /** Runs another CLI command as a child process with the same environment. */
  cli(args: readonly string[]): ReturnType<typeof runCliToEnd>;
  /** Kills the daemon, closes the simulator, removes the sandbox (its dir kept with `keepDir`). */
  cleanup(options?: { keepDir?: boolean }): Promise<void>;
}

export async function startProcessHarness(
  label: string,
  simOptions: SimulatorOptions = {},
  env: Record<string, string> = {},
): Promise<ProcessHarness> {
  const box = makeSandbox(label);
  const sim = await startSimulator({ products: 500, ...simOptions });
  const baseEnv: Record<string, string> = {
    ...harnessEnv(sim, box),
    // Crash tests wait for a dead process's job locks to lapse: keep that short here.
    JOB_LOCK_MS: '4000',
    ...env,
  };
  const h: ProcessHarness = {
    box,
    sim,
    env: baseEnv,
    daemon: undefined,
    async start(extraEnv = {}, nodeArgs) {
      const env = { ...baseEnv, ...extraEnv };
      const d = nodeArgs === undefined ? runCli(['run'], env) : runNode(nodeArgs, env);
      h.daemon = d;
      await d.waitForEvent('daemon.started', 20_000);
      return d;
    },
    async stop() {
      const d = h.daemon;
      if (!d) return 'not running';
      if (d.child.exitCode !== null || d.child.signalCode !== null) return d.exited;
      d.kill('SIGTERM');
      return d.exited;
    },
    drop(name, content, mtime) {
      const temp = join(box.dataDir, 'inbox', `.${name}.tmp`);
      writeFileSync(temp, content);
      if (mtime) utimesSync(temp, mtime, mtime);
      renameSync(temp, join(box.dataDir, 'inbox', name));
    },
    cli: (args) => runCliToEnd(args, baseEnv),
    async cleanup(options) {
      const d = h.daemon;
      if (d && d.child.exitCode === null && d.child.signalCode === null) {
        d.kill('SIGKILL');
        await d.exited;
      }
      await sim.close();
      await box.cleanup(options);
    },
  };
  return h;
}
