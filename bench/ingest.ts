/**
 * Ingest benchmark (not a test). Generates stock sources and ingests each through the real path
 * in a child process of its own (bench/lib/ingestCase.ts: peak RSS and the longest event-loop
 * block are the ingest's), each compared with its floor, measured right before it: --rows
 * factory rows bulk-inserted into a fresh SQLite table with a bare prepared statement in one
 * transaction (per row, for a case of another size). Wall time and CPU time (every thread of
 * the process) of both: on a machine shared with other work the wall times follow the load, and
 * a floor measured next to its case follows it the most closely; the CPU times follow it less.
 * The shuffled and DC cases also have their own rows' floor: the same bare INSERT of the keys the
 * case stores, in the file's order (random keys cost a B-tree more than sorted ones).
 *
 * Cases: a factory stock CSV of --rows rows (time against the floor, peak RSS, event loop); the
 * same with --big-rows rows (peak RSS must not grow with the file); the --rows rows with their
 * SKUs shuffled (ERPs do not all export in SKU order); a DC stock CSV of --rows rows (3 centres);
 * an ERP SQLite snapshot of --rows factory rows.
 *
 * Then the cost of synchronous = FULL (#13 point 5): `--files` (200) small files of 10 rows, one
 * after the other, each its own commits, renames and flushes, on a state.db with synchronous =
 * NORMAL (before) and FULL (now). `--synchronous normal` runs the large cases with NORMAL
 * instead of the daemon's FULL.
 *
 *   node bench/ingest.ts [--rows 1000000] [--big-rows 5000000] [--files 200]
 *                        [--synchronous full|normal] [--keep] [--quick | --scale S] [--json]
 *
 * --quick (= --scale 0.1) and --scale size the row counts down unless given; --big-rows 0 skips
 * the big file; --json also prints the BENCH_RESULT line that bench/run.ts reads.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DAEMON_NODE_ENV, DAEMON_NODE_FLAGS } from '../src/cli/nodeFlags.ts';
import { ensureDataDirs } from '../src/config/dataPaths.ts';
import { processInboxFile } from '../src/inventory/ingest/process.ts';
import { createDcDirectory } from '../src/inventory/validate/dcDirectory.ts';
import { createLogger } from '../src/log/logger.ts';
import { openStateDb } from '../src/state/db.ts';
import { benchArgs, sized } from './lib/args.ts';
import { onCleanup } from './lib/cleanup.ts';
import { writeErpSnapshot } from './lib/erpSnapshot.ts';
import { type BenchRow, emitResult, fmtInt } from './lib/result.ts';

const started = performance.now();
const args = benchArgs({
  rows: { type: 'string' },
  'big-rows': { type: 'string' },
  files: { type: 'string' },
  synchronous: { type: 'string' },
  keep: { type: 'boolean', default: false },
});
const values = args.values;
const rows = sized(values.rows, 1_000_000, args.scale);
const bigRows = values['big-rows'] === '0' ? 0 : sized(values['big-rows'], 5_000_000, args.scale);
const smallFiles = sized(values.files, 200, args.scale, 10);
// The daemon's setting (FULL) unless told otherwise, to compare the large files with NORMAL.
const sync = String(values.synchronous ?? 'full').toUpperCase();
if (sync !== 'FULL' && sync !== 'NORMAL') throw new Error('--synchronous is full or normal');

const NODE = process.execPath;
const CASE = join(import.meta.dirname, 'lib', 'ingestCase.ts');
const sku = (i: number) => `SKU-${String(i).padStart(7, '0')}`;
const qty = (i: number) => (i * 7919) % 10_000;
const DCS = ['DC-1', 'DC-2', 'DC-3'];

interface Floor {
  seconds: number;
  cpuS: number;
}

interface CaseResult {
  seconds: number;
  /** CPU seconds of the ingest's process, every thread. */
  cpuS: number;
  peakRssMiB: number;
  loopMaxMs: number;
  loopP99Ms: number;
  blocks: Array<{ wallMs: number; cpuMs: number }>;
  rowsAccepted: number;
  outcome: string;
  /** Its floor, measured right before it. */
  floor: Floor;
  /**
   * The same bare INSERT of the case's own rows in the file's order (a shuffled file's keys in
   * random order, a DC file's three centres), where they differ from the factory floor's.
   */
  ownFloor?: Floor | undefined;
}

/** A floor row: the key and quantity the ingest ends up storing for row i of the file. */
type FloorRow = (i: number) => readonly [kind: string, dc: string, sku: string, quantity: number];
const factoryRow: FloorRow = (i) => ['factory', '', sku(i), qty(i)];

const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-bench-'));
// Also when interrupted (bench/lib/cleanup.ts handles SIGINT and SIGTERM).
const removeDir = onCleanup(() => {
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
});

async function writeCsv(path: string, header: string, n: number, row: (i: number) => string) {
  const out = createWriteStream(path);
  out.write(`${header}\n`);
  const CHUNK = 10_000;
  for (let i = 0; i < n; i += CHUNK) {
    let text = '';
    for (let j = i; j < Math.min(n, i + CHUNK); j++) text += `${row(j)}\n`;
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return statSync(path).size;
}

function runCase(
  mode: 'file' | 'snapshot',
  dataDir: string,
  target: string,
  ownRow?: FloorRow,
): CaseResult {
  const floorOfCase = floor(rows);
  const ownFloor = ownRow === undefined ? undefined : floor(rows, ownRow);
  // With the daemon's own Node flags and environment: the young generation's size and the malloc
  // arenas decide much of the peak RSS.
  const out = execFileSync(NODE, [...DAEMON_NODE_FLAGS, CASE, mode, dataDir, target, sync], {
    env: { ...process.env, ...DAEMON_NODE_ENV },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  const result = JSON.parse(out.trim().split('\n').at(-1)!) as CaseResult;
  if (!['processed', 'read'].includes(result.outcome)) {
    throw new Error(`unexpected outcome: ${out}`);
  }
  return { ...result, floor: floorOfCase, ownFloor };
}

/** 0 … n-1 in a random order (Fisher–Yates), for a file whose SKUs are not sorted. */
function shuffled(n: number): Uint32Array {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  return order;
}

async function fileCase(name: string, n: number, dc: boolean, shuffle = false) {
  const paths = await ensureDataDirs(join(dir, name));
  const file = `${name}.csv`;
  const order = shuffle ? shuffled(n) : undefined;
  const at = (i: number) => order?.[i] ?? i;
  const bytes = dc
    ? await writeCsv(
        join(paths.inbox, file),
        'distribution_centre_code,sku,stock_quantity',
        n,
        (i) => `${DCS[i % 3]},${sku(Math.floor(i / 3))},${qty(i)}`,
      )
    : await writeCsv(
        join(paths.inbox, file),
        'sku,stock_quantity',
        n,
        (i) => `${sku(at(i))},${qty(at(i))}`,
      );
  const ownRow: FloorRow | undefined = dc
    ? (i) => ['dc', DCS[i % 3]!, sku(Math.floor(i / 3)), qty(i)]
    : shuffle
      ? (i) => factoryRow(at(i))
      : undefined;
  const r = runCase('file', paths.dataDir, file, ownRow);
  if (r.rowsAccepted !== n) throw new Error(`${name}: ${r.rowsAccepted} of ${n} rows accepted`);
  rmSync(paths.dataDir, { recursive: true, force: true });
  return { ...r, bytes };
}

function snapshotCase(n: number) {
  const dataDir = join(dir, 'snapshot');
  const path = writeErpSnapshot(join(dir, 'erp-snapshot.db'), n, sku, qty);
  const r = runCase('snapshot', dataDir, path);
  if (r.rowsAccepted !== n) throw new Error(`snapshot: ${r.rowsAccepted} of ${n} rows accepted`);
  return r;
}

function floor(n: number, row: FloorRow = factoryRow): Floor {
  const floorDb = new Database(join(dir, 'floor.db'));
  floorDb.pragma('journal_mode = WAL');
  floorDb.pragma('synchronous = NORMAL');
  floorDb.exec(
    'CREATE TABLE t (kind TEXT NOT NULL, dc TEXT NOT NULL, sku TEXT NOT NULL, quantity INTEGER NOT NULL, PRIMARY KEY (kind, dc, sku)) WITHOUT ROWID',
  );
  const insert = floorDb.prepare('INSERT INTO t VALUES (?, ?, ?, ?)');
  const t = performance.now();
  const cpu = process.cpuUsage();
  floorDb.transaction(() => {
    for (let i = 0; i < n; i++) insert.run(...row(i));
  })();
  const seconds = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  floorDb.close();
  rmSync(join(dir, 'floor.db'), { force: true });
  return { seconds, cpuS: (used.user + used.system) / 1e6 };
}

/** The cost of synchronous = FULL: many small files, where commits and flushes dominate. */
async function smallFilesCost(): Promise<Record<'NORMAL' | 'FULL', number>> {
  const perFile: Record<'NORMAL' | 'FULL', number> = { NORMAL: 0, FULL: 0 };
  const log = createLogger({ level: 'warn', pretty: false });
  for (const mode of ['NORMAL', 'FULL'] as const) {
    const small = await ensureDataDirs(join(dir, `small-${mode}`));
    const sdb = openStateDb(small.stateDb);
    sdb.pragma(`synchronous = ${mode}`);
    const deps = {
      db: sdb,
      log,
      dataDir: small.dataDir,
      dcDirectory: createDcDirectory({ db: sdb }),
      maxSkuLength: 64,
    };
    let total = 0;
    for (let f = 0; f < smallFiles; f++) {
      const name = join(small.inbox, `small-${f}.csv`);
      let text = 'sku,stock_quantity\n';
      for (let j = 0; j < 10; j++) text += `${sku(j)},${f * 10 + j}\n`;
      writeFileSync(name, text);
      const t0 = performance.now();
      const o = await processInboxFile(name, deps);
      total += performance.now() - t0;
      if (o.status !== 'processed') throw new Error(`unexpected outcome: ${JSON.stringify(o)}`);
    }
    sdb.close();
    perFile[mode] = total / smallFiles;
  }
  return perFile;
}

try {
  const load = loadavg()[0]!;
  const factory = await fileCase('factory', rows, false);
  const big = bigRows > 0 ? await fileCase('factory-big', bigRows, false) : undefined;
  const shuffledFile = await fileCase('factory-shuffled', rows, false, true);
  const dcFile = await fileCase('dc', rows, true);
  const snapshot = snapshotCase(rows);
  const perFile = await smallFilesCost();
  const loadAfter = loadavg()[0]!;

  const cases: Array<[string, number, CaseResult]> = [
    [`factory CSV, ${fmtInt(rows)} rows`, rows, factory],
    ...(big
      ? [[`factory CSV, ${fmtInt(bigRows)} rows`, bigRows, big] as [string, number, CaseResult]]
      : []),
    [`factory CSV, ${fmtInt(rows)} rows, SKUs shuffled`, rows, shuffledFile],
    [`DC CSV, ${fmtInt(rows)} rows (3 centres)`, rows, dcFile],
    [`SQLite snapshot, ${fmtInt(rows)} factory rows`, rows, snapshot],
  ];
  console.log(
    `node ${process.version}, ${availableParallelism()} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load average ${load.toFixed(1)} → ${loadAfter.toFixed(1)}`,
  );
  console.log(
    `factory CSV: ${(factory.bytes / 1e6).toFixed(1)} MB at ${fmtInt(rows)} rows; state.db synchronous = ${sync}`,
  );
  // Wall and CPU time of a case against its floor's, per row.
  const ratio = (n: number, r: CaseResult) => (r.seconds / r.floor.seconds) * (rows / n);
  const cpuRatio = (n: number, r: CaseResult) => (r.cpuS / r.floor.cpuS) * (rows / n);
  const floors = cases.map(([, , r]) => r.floor.seconds);
  console.log('');
  console.log(
    '| case | seconds (CPU) | rows/s | its floor | ingest / floor | CPU / floor CPU | its own rows’ floor, ratio | peak RSS | longest event-loop block (its CPU) | p99 block |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [name, n, r] of cases) {
    const top = r.blocks[0];
    console.log(
      `| ${name} | ${r.seconds.toFixed(2)} (${r.cpuS.toFixed(2)}) | ${fmtInt(n / r.seconds)} | ${r.floor.seconds.toFixed(2)} s (${r.floor.cpuS.toFixed(2)}) | ${ratio(n, r).toFixed(2)}× | ${cpuRatio(n, r).toFixed(2)}× | ${r.ownFloor === undefined ? '—' : `${r.ownFloor.seconds.toFixed(2)} s, ${(r.seconds / r.ownFloor.seconds).toFixed(2)}×`} | ${r.peakRssMiB.toFixed(0)} MiB | ${r.loopMaxMs.toFixed(0)} ms${top === undefined ? '' : ` (${top.cpuMs.toFixed(0)} ms)`} | ${r.loopP99Ms.toFixed(0)} ms |`,
    );
  }
  console.log(
    `floor: bare INSERT of ${fmtInt(rows)} factory rows, one transaction, right before each case: ${Math.min(...floors).toFixed(2)}–${Math.max(...floors).toFixed(2)} s; its own rows' floor: the same INSERT of the case's own keys in the file's order (shuffled; three centres)`,
  );
  console.log('');
  console.log(
    `${smallFiles} files of 10 rows: ${perFile.NORMAL.toFixed(2)} ms a file with synchronous = NORMAL, ${perFile.FULL.toFixed(2)} ms with FULL (${(perFile.FULL / perFile.NORMAL).toFixed(2)}×)`,
  );
  if (big) {
    console.log(
      `peak RSS at ${fmtInt(bigRows)} rows: ${((big.peakRssMiB / factory.peakRssMiB - 1) * 100).toFixed(1)} % against ${fmtInt(rows)} rows`,
    );
  }
  if (args.json) {
    const rowsOut: BenchRow[] = cases.map(([name, n, r]) => ({
      measure: `${name} → parsed, validated, staged, applied`,
      result: `${r.seconds.toFixed(2)} s, ${fmtInt(n / r.seconds)} rows/s; RSS ${r.peakRssMiB.toFixed(0)} MiB; loop block ≤ ${r.loopMaxMs.toFixed(0)} ms`,
      reference: `its floor (bare INSERT, 1 tx) ${r.floor.seconds.toFixed(2)} s, ${fmtInt(rows / r.floor.seconds)} rows/s; CPU ${cpuRatio(n, r).toFixed(2)}×${r.ownFloor === undefined ? '' : `; its own rows in the file's order ${r.ownFloor.seconds.toFixed(2)} s (${(r.seconds / r.ownFloor.seconds).toFixed(2)}×)`}`,
      ratio: `${ratio(n, r).toFixed(2)}×`,
    }));
    rowsOut.push({
      measure: `${fmtInt(smallFiles)} files of 10 rows, one by one, state.db synchronous = FULL`,
      result: `${perFile.FULL.toFixed(2)} ms a file`,
      reference: `synchronous = NORMAL ${perFile.NORMAL.toFixed(2)} ms a file`,
      ratio: `${(perFile.FULL / perFile.NORMAL).toFixed(2)}×`,
    });
    emitResult({
      name: 'ingest',
      wallS: (performance.now() - started) / 1000,
      peakRssMiB: Math.max(...cases.map(([, , r]) => r.peakRssMiB)),
      rows: rowsOut,
      data: {
        rows,
        bigRows,
        synchronous: sync,
        smallFiles,
        msPerSmallFile: perFile,
        load: [load, loadAfter],
        cases: Object.fromEntries(cases.map(([name, , r]) => [name, r])),
      },
    });
  }
} finally {
  await removeDir();
}
