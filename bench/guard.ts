/**
 * Guard rails benchmark (not a test): what the check before apply costs on a large stock file.
 * state.db knows N factory keys on the portal; then
 *  1. a file of N rows is ingested with the guard rails off (the reference; each timed file
 *     updates the N keys a first, untimed file stored),
 *  2. a file of N rows with the guard rails on that passes (the check is one query over the
 *     staged set, in the pipeline's "before apply" step),
 *  3. a file of N rows zeroing most of the range: held (its rows kept aside, moved to held/),
 *  4. the check as `plan FILE` runs it: rows in memory staged into a TEMP table, then the query.
 *
 *   node bench/guard.ts [--rows 1000000] [--quick | --scale S] [--json]
 */
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { ensureDataDirs } from '../src/config/dataPaths.ts';
import { guardStockFile } from '../src/inventory/apply/guardFile.ts';
import { processInboxFile } from '../src/inventory/ingest/process.ts';
import { createDcDirectory } from '../src/inventory/validate/dcDirectory.ts';
import { createLogger } from '../src/log/logger.ts';
import { openStateDb } from '../src/state/db.ts';
import { benchArgs, sized } from './lib/args.ts';
import { onCleanup } from './lib/cleanup.ts';
import { emitResult, fmtInt } from './lib/result.ts';

const started = performance.now();
const args = benchArgs({ rows: { type: 'string' } });
const rows = sized(args.values.rows, 1_000_000, args.scale);
const guard = { zeroPercent: 50, dropPercent: 80, minKeys: 50 };

const sku = (i: number) => `SKU-${String(i).padStart(7, '0')}`;
const qty = (i: number) => 1 + ((i * 7919) % 10_000);

const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-bench-guard-'));
const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }));

async function writeCsv(path: string, quantity: (i: number) => number): Promise<void> {
  const out = createWriteStream(path);
  out.write('sku,stock_quantity\n');
  const CHUNK = 10_000;
  for (let i = 0; i < rows; i += CHUNK) {
    let text = '';
    for (let j = i; j < Math.min(rows, i + CHUNK); j++) text += `${sku(j)},${quantity(j)}\n`;
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

try {
  const paths = await ensureDataDirs(dir);
  const db = openStateDb(paths.stateDb);
  const log = createLogger({ level: 'warn', pretty: false });
  const deps = { db, log, dataDir: dir, dcDirectory: createDcDirectory({ db }), maxSkuLength: 64 };
  // The portal is known to hold every key (as after a reconciliation).
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
     INSERT INTO remote_stock (kind, dc, sku, quantity, seen_at)
     SELECT 'factory', '', printf('SKU-%07d', i), 1 + ((i * 7919) % 10000), 0 FROM n`,
  ).run(rows);

  const time = async (name: string, quantity: (i: number) => number, withGuard: boolean) => {
    const file = join(paths.inbox, `${name}.csv`);
    await writeCsv(file, quantity);
    const t = performance.now();
    const outcome = await processInboxFile(file, withGuard ? { ...deps, guard } : deps);
    return { s: (performance.now() - t) / 1000, status: outcome.status };
  };

  // Desired stock first (untimed), so that each timed file updates the same keys.
  await time('initial', (i) => qty(i) + 3, false);
  const reference = await time('reference', (i) => qty(i) + 1, false);
  // The rows as `plan` hands them over, one at a time (a Map of a million row objects here
  // was most of this process's peak, not the check's).
  function* planRows() {
    for (let i = 0; i < rows; i++) yield { dc: '', sku: sku(i), quantity: qty(i) + 2 };
  }
  const t = performance.now();
  const check = guardStockFile(db, guard, {
    contentHash: 'bench',
    kind: 'factory',
    rows: planRows(),
  });
  const checkS = (performance.now() - t) / 1000;
  const passing = await time('passing', (i) => qty(i) + 2, true);
  const held = await time('held', (i) => (i % 10 === 0 ? qty(i) : 0), true);
  if (
    reference.status !== 'processed' ||
    passing.status !== 'processed' ||
    held.status !== 'held' ||
    check.hold
  )
    throw new Error(
      `unexpected outcomes: ${JSON.stringify({ reference, passing, held, check: check.hold })}`,
    );
  db.close();

  const rss = process.resourceUsage().maxRSS / 1024;
  const line = (name: string, s: number) =>
    `| ${name.padEnd(44)} | ${s.toFixed(2).padStart(8)} | ${fmtInt(rows / s).padStart(11)} |`;
  console.log(
    `rows: ${fmtInt(rows)}; node ${process.version}, ${availableParallelism()} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
  );
  console.log('');
  console.log(`| ${'phase'.padEnd(44)} | ${'seconds'.padStart(8)} | ${'rows/s'.padStart(11)} |`);
  console.log(`| ${'-'.repeat(44)} | ${'-'.repeat(8)}:| ${'-'.repeat(11)}:|`);
  console.log(line('file, guard rails off (reference)', reference.s));
  console.log(line('file, guard rails on, passes', passing.s));
  console.log(line('file, guard rails on, held (rows kept aside)', held.s));
  console.log(line("plan's check (rows in memory → TEMP, query)", checkS));
  console.log('');
  console.log(
    `with / without the check: ${(passing.s / reference.s).toFixed(2)}×; peak RSS ${rss.toFixed(0)} MiB`,
  );
  if (args.json) {
    emitResult({
      name: 'guard',
      wallS: (performance.now() - started) / 1000,
      peakRssMiB: rss,
      rows: [
        {
          measure: `${fmtInt(rows)}-row stock file with the guard rails' check (one query against ${fmtInt(rows)} known keys), applied`,
          result: `${passing.s.toFixed(2)} s`,
          reference: `the same ingest without it ${reference.s.toFixed(2)} s`,
          ratio: `${(passing.s / reference.s).toFixed(2)}×`,
        },
        {
          measure: `${fmtInt(rows)}-row mass-zero file held (rows kept aside, moved to held/)`,
          result: `${held.s.toFixed(2)} s`,
          reference: `passing file with the check ${passing.s.toFixed(2)} s`,
          ratio: `${(held.s / passing.s).toFixed(2)}×`,
        },
      ],
      data: { rows, referenceS: reference.s, checkS, passingS: passing.s, heldS: held.s },
    });
  }
} finally {
  await removeDir();
}
