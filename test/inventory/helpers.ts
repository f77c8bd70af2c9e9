import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { dataPaths } from '../../src/config/dataPaths.ts';
import { type FileOutcome, type IngestDeps, processInboxFile } from '../../src/inventory/index.ts';
import type { FileReport } from '../../src/inventory/ingest/report.ts';
import type { SnapshotDeps } from '../../src/inventory/snapshot/read.ts';
import type { DcDirectory } from '../../src/inventory/validate/dcDirectory.ts';
import { createDcDirectory } from '../../src/inventory/validate/dcDirectory.ts';
import { createLogger, type Logger } from '../../src/log/logger.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import type { DistributionCentreRecord } from '../../src/state/stock/distributionCentres.ts';
import { RemoteStock } from '../../src/state/stock/remoteStock.ts';
import { makeSandbox } from '../helpers/sandbox.ts';

export interface LogCapture {
  readonly log: Logger;
  /** Every line written so far, parsed. */
  lines(): Array<Record<string, unknown>>;
  events(name: string): Array<Record<string, unknown>>;
}

export function captureLog(): LogCapture {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString()));
  const log = createLogger({ destination: stream, pretty: false, level: 'debug' });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { log, lines, events: (name) => lines().filter((l) => l.event === name) };
}

/**
 * A data dir with its folders, a real state.db, a capturing logger and a DC list to serve.
 * `prepare` runs on the empty data dir before anything is made in it (a test mounts a small disk
 * there).
 */
export function makeIngestEnv(
  label = 'ingest',
  options: { readonly prepare?: (dataDir: string) => void } = {},
) {
  const sandbox = makeSandbox(label);
  const dataDir = sandbox.dataDir;
  options.prepare?.(dataDir);
  const paths = dataPaths(dataDir);
  for (const d of [paths.inbox, paths.processed, paths.failed, paths.outbox])
    mkdirSync(d, { recursive: true });
  const db: StateDb = openStateDb(paths.stateDb);
  const capture = captureLog();
  const portal = {
    centres: [
      { code: 'DC1', is_active: true },
      { code: 'DC2', is_active: true },
      { code: 'OLD', is_active: false },
    ] as DistributionCentreRecord[],
    fetches: 0,
    down: false,
  };
  const dcDirectory: DcDirectory = createDcDirectory({
    db,
    log: capture.log,
    fetchDistributionCentres: async () => {
      portal.fetches++;
      if (portal.down) throw new Error('portal unreachable');
      return portal.centres;
    },
  });
  const deps: IngestDeps = { db, log: capture.log, dataDir, dcDirectory, maxSkuLength: 64 };

  return {
    dataDir,
    paths,
    db,
    capture,
    portal,
    dcDirectory,
    deps,
    /** Writes a file into inbox/ and returns its path. */
    drop(name: string, content: string | Buffer): string {
      const path = join(paths.inbox, name);
      writeFileSync(path, content);
      return path;
    },
    process(name: string, extra: Partial<IngestDeps> = {}): Promise<FileOutcome> {
      return processInboxFile(join(paths.inbox, name), { ...deps, ...extra });
    },
    report(outcome: FileOutcome): FileReport {
      return JSON.parse(readFileSync(outcome.reportPath!, 'utf8')) as FileReport;
    },
    list(folder: 'inbox' | 'processed' | 'failed'): string[] {
      return readdirSync(paths[folder]).sort();
    },
    desired(): Array<{ kind: string; dc: string; sku: string; quantity: number; source: string }> {
      return db
        .prepare('SELECT kind, dc, sku, quantity, source FROM desired_stock ORDER BY kind, dc, sku')
        .all() as Array<{
        kind: string;
        dc: string;
        sku: string;
        quantity: number;
        source: string;
      }>;
    },
    /** Records that the portal holds these factory quantities (as a reconciliation read would). */
    portalHolds(rows: ReadonlyArray<{ sku: string; quantity: number }>): void {
      new RemoteStock(db).storeRead(
        rows.map((r) => ({
          kind: 'factory' as const,
          dc: '',
          sku: r.sku,
          quantity: r.quantity,
          platformSku: null,
        })),
        Date.now(),
      );
    },
    dirty(): string[] {
      return (
        db
          .prepare('SELECT kind, dc, sku FROM pending_stock ORDER BY kind, dc, sku')
          .all() as Array<{
          kind: string;
          dc: string;
          sku: string;
        }>
      ).map((r) => (r.kind === 'dc' ? `dc:${r.dc}:${r.sku}` : `factory:${r.sku}`));
    },
    async cleanup() {
      db.close();
      await sandbox.cleanup();
    },
  };
}

export type IngestEnv = ReturnType<typeof makeIngestEnv>;

/**
 * An ERP snapshot database at `path` (tables factory_stock and dc_stock, as the contract's example
 * queries read them), written anew as an ERP does: under a temporary name, dated `at`, then
 * renamed over the old one.
 */
export function writeSnapshotDb(
  path: string,
  factory: ReadonlyArray<readonly [unknown, unknown]>,
  dc: ReadonlyArray<readonly [unknown, unknown, unknown]> = [],
  at = new Date(),
): void {
  mkdirSync(join(path, '..'), { recursive: true });
  const tmp = `${path}.new`;
  const db = new Database(tmp);
  db.exec(`CREATE TABLE factory_stock (sku TEXT, stock_quantity);
           CREATE TABLE dc_stock (distribution_centre_code TEXT, sku TEXT, stock_quantity);`);
  const f = db.prepare('INSERT INTO factory_stock VALUES (?, ?)');
  const d = db.prepare('INSERT INTO dc_stock VALUES (?, ?, ?)');
  for (const r of factory) f.run(...r);
  for (const r of dc) d.run(...r);
  db.close();
  utimesSync(tmp, at, at);
  renameSync(tmp, path);
}

/** What readSnapshot needs to read `snapshotDb` (written by writeSnapshotDb) into `env`. */
export function snapshotDeps(
  env: IngestEnv,
  snapshotDb: string,
  extra: Partial<SnapshotDeps> = {},
): SnapshotDeps {
  return {
    db: env.db,
    log: env.capture.log,
    snapshotDb,
    factoryQuery: 'SELECT sku, stock_quantity FROM factory_stock',
    dcQuery: 'SELECT distribution_centre_code, sku, stock_quantity FROM dc_stock',
    dcDirectory: env.dcDirectory,
    maxSkuLength: 64,
    dataDir: env.dataDir,
    ...extra,
  };
}
