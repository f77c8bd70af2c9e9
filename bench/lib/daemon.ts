import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.ts';
import { type CliProcess, runCli } from '../../test/helpers/daemonProcess.ts';
import { onCleanup } from './cleanup.ts';
import { type BenchRedis, startRedis } from './redis.ts';

/**
 * The real daemon (`node src/cli/main.ts run`) as a child process against a simulator in this
 * process, on a private data dir, Redis key prefix and (unless REDIS_URL answers) Redis server.
 */
export interface BenchDaemon {
  readonly sim: Simulator;
  readonly dataDir: string;
  readonly inbox: string;
  readonly prefix: string;
  readonly redis: BenchRedis;
  readonly env: Record<string, string>;
  daemon: CliProcess | undefined;
  /** Starts the daemon (with `extraEnv` on top of `env`); resolves once it logged daemon.started. */
  start(extraEnv?: Record<string, string>): Promise<CliProcess>;
  /** The daemon's peak RSS so far (VmHWM), MiB; undefined where /proc is not there. */
  daemonPeakRssMiB(): number | undefined;
  /** Stops the daemon (SIGTERM, SIGKILL after 10 s), the simulator, Redis; removes the dir and keys. */
  close(): Promise<void>;
}

export async function startBenchDaemon(
  label: string,
  simOptions: SimulatorOptions,
  env: Record<string, string>,
): Promise<BenchDaemon> {
  const dataDir = mkdtempSync(join(tmpdir(), `supplier-sync-bench-${label}-`));
  const prefix = `bench-${label}-${randomBytes(4).toString('hex')}`;
  let redis: BenchRedis | undefined;
  let sim: Simulator | undefined;
  const h: { daemon: CliProcess | undefined } = { daemon: undefined };
  const close = onCleanup(async () => {
    const d = h.daemon;
    if (d && d.child.exitCode === null && d.child.signalCode === null) {
      d.kill('SIGTERM');
      const timer = setTimeout(() => d.kill('SIGKILL'), 10_000);
      await d.exited;
      clearTimeout(timer);
    }
    await sim?.close();
    await redis?.close(prefix);
    rmSync(dataDir, { recursive: true, force: true });
  });
  try {
    redis = await startRedis();
    sim = await startSimulator(simOptions);
  } catch (err) {
    await close();
    throw err;
  }
  const fullEnv: Record<string, string> = {
    SUPPLIER_API_URL: sim.baseUrl,
    SUPPLIER_EMAIL: 'supplier@example.com',
    SUPPLIER_PASSWORD: 'demo-password',
    REDIS_URL: redis.url,
    SYNC_QUEUE_PREFIX: prefix,
    SYNC_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...env,
  };
  const bench: BenchDaemon = {
    sim,
    dataDir,
    inbox: join(dataDir, 'inbox'),
    prefix,
    redis,
    env: fullEnv,
    get daemon() {
      return h.daemon;
    },
    set daemon(d) {
      h.daemon = d;
    },
    async start(extraEnv = {}) {
      const d = runCli(['run'], { ...fullEnv, ...extraEnv });
      h.daemon = d;
      await d.waitForEvent('daemon.started', 30_000);
      return d;
    },
    daemonPeakRssMiB() {
      const pid = h.daemon?.child.pid;
      if (pid === undefined) return undefined;
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        return m ? Number(m[1]) / 1024 : undefined;
      } catch {
        return undefined;
      }
    },
    close,
  };
  return bench;
}
