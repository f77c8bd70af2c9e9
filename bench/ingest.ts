/**
 * Ingest benchmark (not a test): generates a factory stock CSV, ingests it with processInboxFile,
 * and compares with the floor: the same rows bulk-inserted into a fresh SQLite table with a bare
 * prepared statement in one transaction.
 *
 * Then the cost of synchronous = FULL (#13 point 5): `--files` (200) small files of 10 rows, one
 * after the other, each its own commits, renames and flushes, on a state.db with synchronous =
 * NORMAL (before) and FULL (now).
 *
 *   node bench/ingest.ts [--rows 1000000] [--files 200] [--synchronous full|normal] [--keep]
 *                        [--quick | --scale S] [--json]
 *
 * --quick (= --scale 0.1) and --scale size the row count down unless --rows is given; --json also
 * prints the BENCH_RESULT line that bench/run.ts reads.
 */
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ensureDataDirs } from '../src/config/dataPaths.ts';
import { createDcDirectory } from '../src/inventory/dcDirectory.ts';
import { processInboxFile } from '../src/inventory/ingest/process.ts';
import { createLogger } from '../src/log/logger.ts';
import { openStateDb } from '../src/state/db.ts';
import { benchArgs, sized } from './lib/args.ts';
import { onCleanup } from './lib/cleanup.ts';
import { emitResult, fmtInt } from './lib/result.ts';

const started = performance.now();
const args = benchArgs({
  rows: { type: 'string' },
  files: { type: 'string' },
  synchronous: { type: 'string' },
  keep: { type: 'boolean', default: false },
});
const values = args.values;
const rows = sized(values.rows, 1_000_000, args.scale);
const smallFiles = sized(values.files, 200, args.scale, 10);

const sku = (i: number) => `SKU-${String(i).padStart(7, '0')}`;
const qty = (i: number) => (i * 7919) % 10_000;

const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-bench-'));
// Also when interrupted (bench/lib/cleanup.ts handles SIGINT and SIGTERM).
const removeDir = onCleanup(() => {
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
});
try {
  const paths = await ensureDataDirs(dir);
  const file = join(paths.inbox, 'stock.csv');

  let t = performance.now();
  const out = createWriteStream(file);
  out.write('sku,stock_quantity\n');
  const CHUNK = 10_000;
  for (let i = 0; i < rows; i += CHUNK) {
    let text = '';
    for (let j = i; j < Math.min(rows, i + CHUNK); j++) text += `${sku(j)},${qty(j)}\n`;
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  const genS = (performance.now() - t) / 1000;
  const bytes = statSync(file).size;

  // Ingest through the real path: hash, stream-parse, validate, one transaction, move, report.
  const db = openStateDb(join(dir, 'state.db'));
  // The daemon's setting (FULL) unless told otherwise, to compare the large file with NORMAL.
  const sync = String(values.synchronous ?? 'full').toUpperCase();
  if (sync !== 'FULL' && sync !== 'NORMAL') throw new Error('--synchronous is full or normal');
  db.pragma(`synchronous = ${sync}`);
  const log = createLogger({ level: 'warn', pretty: false });
  t = performance.now();
  const outcome = await processInboxFile(file, {
    db,
    log,
    dataDir: dir,
    dcDirectory: createDcDirectory({ db }),
    maxSkuLength: 64,
  });
  const ingestS = (performance.now() - t) / 1000;
  if (outcome.status !== 'processed' || outcome.rowsAccepted !== rows)
    throw new Error(`unexpected outcome: ${JSON.stringify(outcome)}`);
  db.close();

  // The floor: a bare prepared INSERT of the same rows into a fresh table, one transaction.
  const floorDb = new Database(join(dir, 'floor.db'));
  floorDb.pragma('journal_mode = WAL');
  floorDb.pragma('synchronous = NORMAL');
  floorDb.exec(
    'CREATE TABLE t (kind TEXT NOT NULL, dc TEXT NOT NULL, sku TEXT NOT NULL, quantity INTEGER NOT NULL, PRIMARY KEY (kind, dc, sku)) WITHOUT ROWID',
  );
  const insert = floorDb.prepare("INSERT INTO t VALUES ('factory', '', ?, ?)");
  t = performance.now();
  floorDb.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(sku(i), qty(i));
  })();
  const floorS = (performance.now() - t) / 1000;
  floorDb.close();

  // The cost of synchronous = FULL: many small files, where commits and flushes dominate.
  const perFile: Record<'NORMAL' | 'FULL', number> = { NORMAL: 0, FULL: 0 };
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

  const rss = process.resourceUsage().maxRSS / 1024;
  const line = (name: string, s: number) =>
    `| ${name.padEnd(42)} | ${s.toFixed(2).padStart(8)} | ${Math.round(rows / s)
      .toLocaleString('en-US')
      .padStart(11)} |`;
  console.log(
    `rows: ${rows.toLocaleString('en-US')}, file: ${(bytes / 1e6).toFixed(1)} MB, synchronous = ${sync}`,
  );
  console.log(
    `node ${process.version}, ${availableParallelism()} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
  );
  console.log('');
  console.log(`| ${'phase'.padEnd(42)} | ${'seconds'.padStart(8)} | ${'rows/s'.padStart(11)} |`);
  console.log(`| ${'-'.repeat(42)} | ${'-'.repeat(8)}:| ${'-'.repeat(11)}:|`);
  console.log(line('generate CSV', genS));
  console.log(line('processInboxFile (hash+parse+apply+move)', ingestS));
  console.log(line('floor: bare INSERT, one transaction', floorS));
  console.log('');
  console.log(`ingest / floor: ${(ingestS / floorS).toFixed(2)}×`);
  console.log(
    `${smallFiles} files of 10 rows: ${perFile.NORMAL.toFixed(2)} ms a file with synchronous = NORMAL, ${perFile.FULL.toFixed(2)} ms with FULL (${(perFile.FULL / perFile.NORMAL).toFixed(2)}×)`,
  );
  console.log(`peak RSS: ${rss.toFixed(0)} MiB`);
  if (args.json) {
    emitResult({
      name: 'ingest',
      wallS: (performance.now() - started) / 1000,
      peakRssMiB: rss,
      rows: [
        {
          measure: `${fmtInt(rows)}-row factory stock CSV → parsed, validated, stored, diffed`,
          result: `${ingestS.toFixed(2)} s, ${fmtInt(rows / ingestS)} rows/s`,
          reference: `floor (bare INSERT, 1 tx) ${floorS.toFixed(2)} s, ${fmtInt(rows / floorS)} rows/s`,
          ratio: `${(ingestS / floorS).toFixed(2)}×`,
        },
        {
          measure: `${fmtInt(smallFiles)} files of 10 rows, one by one, state.db synchronous = FULL`,
          result: `${perFile.FULL.toFixed(2)} ms a file`,
          reference: `synchronous = NORMAL ${perFile.NORMAL.toFixed(2)} ms a file`,
          ratio: `${(perFile.FULL / perFile.NORMAL).toFixed(2)}×`,
        },
      ],
      data: {
        rows,
        bytes,
        generateS: genS,
        ingestS,
        floorS,
        ratio: ingestS / floorS,
        smallFiles,
        msPerSmallFile: perFile,
      },
    });
  }
} finally {
  await removeDir();
}
