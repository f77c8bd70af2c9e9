import { renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.ts';
import { type CliProcess, runCli, runCliToEnd } from './daemonProcess.ts';
import { makeSandbox, type Sandbox } from './sandbox.ts';

/** A simulator in this process, and `supplier-sync run` as a real child process against it. */
export interface Harness {
  readonly box: Sandbox;
  readonly sim: Simulator;
  readonly env: Record<string, string>;
  daemon: CliProcess | undefined;
  /** Starts (or restarts) the daemon; resolves once it logged daemon.started. */
  start(extraEnv?: Record<string, string>): Promise<CliProcess>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | string>;
  /** Writes a file into inbox/ atomically (temp name, then rename), as an ERP should. */
  drop(name: string, content: string, mtime?: Date): void;
  /** Runs another CLI command with the same environment. */
  cli(args: readonly string[]): ReturnType<typeof runCliToEnd>;
  /** Kills the daemon, closes the simulator, removes the sandbox (its dir kept with `keepDir`). */
  cleanup(options?: { keepDir?: boolean }): Promise<void>;
}

export async function startHarness(
  label: string,
  simOptions: SimulatorOptions = {},
  env: Record<string, string> = {},
): Promise<Harness> {
  const box = makeSandbox(label);
  const sim = await startSimulator({ products: 500, ...simOptions });
  const baseEnv: Record<string, string> = {
    SUPPLIER_API_URL: sim.baseUrl,
    SUPPLIER_EMAIL: 'supplier@example.com',
    SUPPLIER_PASSWORD: 'demo-password',
    REDIS_URL: box.redisUrl,
    SYNC_QUEUE_PREFIX: box.prefix,
    SYNC_DATA_DIR: box.dataDir,
    INBOX_STABILITY_MS: '100',
    INBOX_SCAN_INTERVAL_MS: '1000',
    API_BACKOFF_BASE_MS: '20',
    API_BACKOFF_MAX_MS: '200',
    LOG_LEVEL: 'debug',
    // Crash tests wait for a dead process's job locks to lapse: keep that short here.
    JOB_LOCK_MS: '4000',
    ...env,
  };
  const h: Harness = {
    box,
    sim,
    env: baseEnv,
    daemon: undefined,
    async start(extraEnv = {}) {
      const d = runCli(['run'], { ...baseEnv, ...extraEnv });
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

/** A stock CSV of factory rows. */
export function factoryCsv(rows: ReadonlyArray<readonly [string, number]>): string {
  return `sku,stock_quantity\n${rows.map(([s, q]) => `${s},${q}`).join('\n')}\n`;
}

/** A stock CSV of DC rows. */
export function dcCsv(rows: ReadonlyArray<readonly [string, string, number]>): string {
  return `distribution_centre_code,sku,stock_quantity\n${rows.map(([d, s, q]) => `${d},${s},${q}`).join('\n')}\n`;
}

export const seededSku = (i: number) => `SKU-${String(i + 1).padStart(7, '0')}`;
