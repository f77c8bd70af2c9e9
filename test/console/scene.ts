/**
 * A daemon in this process against an in-process simulator, with its console on a free port: for
 * the browser tests (browser.test.ts) and the console's screenshots (scripts/console-screenshots.ts).
 * No vitest here: the screenshot script runs it under plain node.
 */
import { existsSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { loadConfig } from '../../src/config/index.ts';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.ts';
import { freePort } from '../../src/demo/redisServer.ts';
import { createLogger } from '../../src/log/logger.ts';
import { type Simulator, startSimulator } from '../../src/simulator/index.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';

export const CONSOLE_PASSWORD = 'console-test-password';

/** The system's Chromium: CHROMIUM_PATH, or where Debian and others put it; undefined: none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [
    env.CHROMIUM_PATH,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
  ];
  return candidates.find((p): p is string => p !== undefined && p !== '' && existsSync(p));
}

/**
 * Flags for a headless Chromium on a machine without a network: no sandbox (it runs as root in
 * CI), no GPU, none of its own connections (updates, sync, safe browsing), which a closed network
 * would refuse.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-default-apps',
  '--disable-extensions',
];

export interface LogLine {
  readonly event?: string;
  readonly [field: string]: unknown;
}

export interface Scene {
  readonly sim: Simulator;
  readonly dataDir: string;
  readonly url: string;
  readonly daemon: Daemon;
  /** Every log line the daemon wrote so far. */
  lines(): LogLine[];
  /** Writes a file into inbox/ atomically (temp name, then rename), as an ERP should. */
  drop(name: string, content: string, mtime?: Date): void;
  /** A connection of its own to the daemon's state.db (closed by stop). */
  db(): StateDb;
  stop(): Promise<void>;
}

export interface SceneOptions {
  readonly redisUrl: string;
  readonly prefix: string;
  /** Set: the console asks for CONSOLE_PASSWORD. Unset: read-only on loopback. */
  readonly password?: boolean;
  readonly env?: Readonly<Record<string, string>>;
}

export async function startScene(options: SceneOptions): Promise<Scene> {
  const dataDir = mkdtempSync(join(tmpdir(), 'supplier-sync-console-'));
  const sim = await startSimulator({ products: 200 });
  const port = await freePort();
  const env: Record<string, string> = {
    SUPPLIER_API_URL: sim.baseUrl,
    SUPPLIER_EMAIL: 'supplier@example.com',
    SUPPLIER_PASSWORD: 'demo-password',
    REDIS_URL: options.redisUrl,
    SYNC_QUEUE_PREFIX: options.prefix,
    SYNC_DATA_DIR: dataDir,
    SYNC_TIMEZONE: 'Europe/Berlin',
    INBOX_STABILITY_MS: '100',
    INBOX_SCAN_INTERVAL_MS: '1000',
    API_BACKOFF_BASE_MS: '20',
    API_BACKOFF_MAX_MS: '200',
    HTTP_PORT: String(port),
    HTTP_HOST: '127.0.0.1',
    ...options.env,
  };
  if (options.password) {
    const file = join(dataDir, 'console-password');
    writeFileSync(file, `${CONSOLE_PASSWORD}\n`, { mode: 0o600 });
    env.CONSOLE_PASSWORD_FILE = file;
  }
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => {
    text += c.toString();
  });
  const log = createLogger({ destination: stream, pretty: false, level: 'debug' });
  const daemon = await startDaemon({ config: loadConfig({ env }), log });
  const dbs: StateDb[] = [];
  return {
    sim,
    dataDir,
    url: `http://127.0.0.1:${port}`,
    daemon,
    lines: () =>
      text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as LogLine),
    drop(name, content, mtime) {
      const temp = join(dataDir, 'inbox', `.${name}.tmp`);
      writeFileSync(temp, content);
      if (mtime) utimesSync(temp, mtime, mtime);
      renameSync(temp, join(dataDir, 'inbox', name));
    },
    db() {
      const db = openStateDb(join(dataDir, 'state.db'));
      dbs.push(db);
      return db;
    },
    async stop() {
      for (const db of dbs) db.close();
      await daemon.stop('test over');
      await sim.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` gives a value, or throws after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const seededSku = (i: number) => `SKU-${String(i + 1).padStart(7, '0')}`;

/** A factory stock CSV. */
export const factoryCsv = (rows: ReadonlyArray<readonly [string, number | string]>) =>
  `sku,stock_quantity\n${rows.map(([s, q]) => `${s},${q}`).join('\n')}\n`;

/** `count` seeded keys from `from`, each at `quantity(i)`. */
export const keys = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => from + i);
