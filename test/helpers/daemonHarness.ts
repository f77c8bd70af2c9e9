import { renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.ts';
import { type Daemon, type DaemonTask, startDaemon } from '../../src/daemon/daemon.ts';
import { type Clock, systemClock } from '../../src/domain/clock.ts';
import { createLogger } from '../../src/log/logger.ts';
import {
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.ts';
import { type CliResult, runCliInProcess } from './cliInProcess.ts';
import { LineWatch, type LogLine, type LogView } from './logLines.ts';
import { makeSandbox, type Sandbox, waitUntil } from './sandbox.ts';

export type { LogLine } from './logLines.ts';

/**
 * A clock the test can move: the system clock plus an offset. The daemon takes it as its wall
 * clock (its schedules' slots, deadlines, back-off, budget windows, the inbox's stability delay),
 * and `h.cli` gives it to commands as their "now"; timers and BullMQ still run on real time, and
 * the daemon's monotonic clock is the process's. Moving it more than 30 s is a clock jump to the
 * daemon (`clock.jump`).
 */
export interface TestClock extends Clock {
  /** Moves this clock's now forward (or back, with a negative `ms`). */
  advance(ms: number): void;
}

export function testClock(): TestClock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    sleep: systemClock.sleep,
    advance(ms) {
      offset += ms;
    },
  };
}

/** The daemon started by a harness, running in the test's own process, and its log. */
export interface RunningDaemon extends LogView {
  readonly daemon: Daemon;
  /** Does now what a schedule's tick or the inbox scan would do next (see Daemon.runNow). */
  runNow(task: DaemonTask): Promise<void>;
}

/**
 * A simulator and `startDaemon` in this process, with one sandbox (data dir, BullMQ prefix) per
 * harness. The daemon's configuration comes from environment-style settings (`env`, then what
 * `start` adds), read by the same loader as `supplier-sync run`; its JSON log lines are kept in
 * memory (`daemon.lines`, `waitFor`), and `cli` runs a command through the CLI's `main` here too.
 * A daemon that must be a real process (SIGKILL, SIGTERM, exit codes): processHarness.ts.
 */
export interface Harness {
  readonly box: Sandbox;
  readonly sim: Simulator;
  /** The settings every start and every `cli` gets (SUPPLIER_API_URL, SYNC_DATA_DIR, …). */
  readonly env: Record<string, string>;
  /** The daemon's clock (see TestClock); the same across restarts. */
  readonly clock: TestClock;
  daemon: RunningDaemon | undefined;
  /** Starts (or restarts) the daemon; resolves once it logged daemon.started. */
  start(extraEnv?: Record<string, string>): Promise<RunningDaemon>;
  /** A graceful stop (as on SIGTERM); resolves to 0 once everything closed, as `run` exits. */
  stop(): Promise<number>;
  /** Does now what a schedule's tick or the inbox scan would do next (see Daemon.runNow). */
  runNow(task: DaemonTask): Promise<void>;
  /** Writes a file into inbox/ atomically (temp name, then rename), as an ERP should. */
  drop(name: string, content: string, mtime?: Date): void;
  /**
   * Runs a CLI command here (main(argv, …)) with the harness's settings and `extraEnv` on top,
   * and the harness's clock as its "now".
   */
  cli(args: readonly string[], extraEnv?: Record<string, string>): Promise<CliResult>;
  /** `status --json`, parsed (the command must succeed). */
  statusJson(): Promise<StatusJson>;
  /** Waits until no job of these queues (push and ingest) waits or runs, as `status` counts them. */
  waitForIdle(queues?: readonly string[], timeoutMs?: number): Promise<void>;
  /** Stops the daemon, closes the simulator, removes the sandbox (its dir kept with `keepDir`). */
  cleanup(options?: { keepDir?: boolean }): Promise<void>;
}

/** What `status --json` prints; the queue depths typed, the rest read by tests as they please. */
// biome-ignore lint/suspicious/noExplicitAny: the command's JSON, checked field by field by the tests
export type StatusJson = Record<string, any> & {
  queues: Record<string, { waiting: number; active: number; prioritized: number }>;
};

/** The settings a harness daemon runs with: quick retries and checks, everything on debug. */
export function harnessEnv(sim: Simulator, box: Sandbox): Record<string, string> {
  return {
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
  };
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

/**
 * Console output while a daemon runs goes into its log view as well (a library printing to the
 * console is output outside the JSON log, which a test of a real process would see on stderr).
 */
function teeConsole(watch: LineWatch): () => void {
  const saved = CONSOLE_METHODS.map((m) => [m, console[m]] as const);
  for (const [m, original] of saved) {
    console[m] = (...args: unknown[]) => {
      for (const line of args.map(String).join(' ').split('\n')) watch.push(line);
      original.apply(console, args);
    };
  }
  return () => {
    for (const [m, original] of saved) console[m] = original;
  };
}

export async function startHarness(
  label: string,
  simOptions: SimulatorOptions = {},
  env: Record<string, string> = {},
): Promise<Harness> {
  const box = makeSandbox(label);
  const sim = await startSimulator({ products: 500, ...simOptions });
  const baseEnv = { ...harnessEnv(sim, box), ...env };
  const clock = testClock();
  let stopping: Promise<number> | undefined;
  const h: Harness = {
    box,
    sim,
    env: baseEnv,
    clock,
    daemon: undefined,
    async start(extraEnv = {}) {
      if (h.daemon && !stopping) throw new Error('the daemon is already running: stop it first');
      await stopping;
      const config = loadConfig({
        env: { ...baseEnv, ...extraEnv },
        require: ['apiUrl', 'email', 'password'],
      });
      const watch = new LineWatch();
      const log = createLogger({
        level: config.logLevel,
        pretty: false,
        destination: {
          write: (chunk: string) => watch.push(chunk.replace(/\n$/, '')),
        } as unknown as NodeJS.WritableStream,
      });
      const restoreConsole = teeConsole(watch);
      let daemon: Daemon;
      try {
        daemon = await startDaemon({ config, log, clock });
      } catch (err) {
        restoreConsole();
        watch.end('the daemon did not start');
        throw err;
      }
      stopping = undefined;
      const running: RunningDaemon = {
        daemon,
        lines: watch.lines,
        output: () => watch.output(),
        waitFor: (match: (l: LogLine) => boolean, timeoutMs?: number, what?: string) =>
          watch.waitFor(match, timeoutMs, what),
        waitForEvent: (event: string, timeoutMs?: number) => watch.waitForEvent(event, timeoutMs),
        runNow: (task) => daemon.runNow(task),
      };
      h.daemon = running;
      // What stop() does: the graceful stop `run` does on SIGTERM, then the log ends.
      h.stop = () => {
        stopping ??= daemon.stop('SIGTERM').then(
          () => {
            restoreConsole();
            watch.end('the daemon stopped');
            return 0;
          },
          (err: unknown) => {
            restoreConsole();
            watch.end('the daemon failed to stop');
            throw err;
          },
        );
        return stopping;
      };
      return running;
    },
    async stop() {
      return 0; // not started yet: replaced by start()
    },
    runNow(task) {
      if (!h.daemon) throw new Error('the daemon is not running');
      return h.daemon.runNow(task);
    },
    drop(name, content, mtime) {
      const temp = join(box.dataDir, 'inbox', `.${name}.tmp`);
      writeFileSync(temp, content);
      if (mtime) utimesSync(temp, mtime, mtime);
      renameSync(temp, join(box.dataDir, 'inbox', name));
    },
    cli: (args, extraEnv = {}) =>
      runCliInProcess(args, { ...baseEnv, ...extraEnv }, undefined, clock.now),
    async statusJson() {
      const r = await h.cli(['status', '--json']);
      if (r.code !== 0) throw new Error(`status --json exited ${r.code}: ${r.output}`);
      return JSON.parse(r.stdout) as StatusJson;
    },
    async waitForIdle(queues = ['push', 'ingest'], timeoutMs = 15_000) {
      await waitUntil(
        async () => {
          const s = await h.statusJson();
          return queues.every((q) => {
            const n = s.queues[q];
            return n !== undefined && n.waiting + n.active + n.prioritized === 0;
          });
        },
        { timeoutMs, intervalMs: 50, message: `idle queues (${queues.join(', ')})` },
      );
    },
    async cleanup(options) {
      if (h.daemon) await h.stop();
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
