/**
 * Event-loop benchmark (not a test): the ingest paths bench/ingest.ts does not take, each on
 * --rows rows in a process of its own, with the event loop watched from just before the ingest
 * to just after it (bench/lib/loopBlocks.ts): its longest block (wall time and the CPU time the
 * thread spent in it) and p99. The daemon's promise is no block over 100 ms.
 *
 *   node bench/loop.ts [--rows 1000000] [--only CASE,…] [--where] [--quick | --scale S] [--json]
 *
 * Cases (the portal known to hold every key of the factory range 0 … rows − 1, where it matters):
 * - guard-pass: a stock file of every key, each one up, with the guard rails on: passes;
 * - guard-held: a file zeroing nine keys in ten, guard rails on: held, its rows kept aside;
 * - full-export: a file naming every other key with `absent: "zero"`: the rest set to 0;
 * - repeats: a file of rows / 2 keys, each twice (the report lists the repeats);
 * - rules: a file under four stock rules (the merge works each key's offer out);
 * - snapshot-guard: an ERP snapshot zeroing nine keys in ten, guard rails on: held;
 * - snapshot-zero: a snapshot of every other key with SNAPSHOT_ABSENT=zero.
 *
 * `--where` also prints, for the longest blocks, the code they ran. The temp dir is removed
 * afterwards, also on Ctrl-C.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAEMON_NODE_ENV, DAEMON_NODE_FLAGS } from '../src/cli/nodeFlags.ts';
import { ensureDataDirs } from '../src/config/dataPaths.ts';
import { profilesFileSchema } from '../src/config/profiles.ts';
import { type IngestDeps, processInboxFile } from '../src/inventory/ingest/process.ts';
import { readSnapshot } from '../src/inventory/snapshot/read.ts';
import { createDcDirectory } from '../src/inventory/validate/dcDirectory.ts';
import { createLogger } from '../src/log/logger.ts';
import { openStateDb, type StateDb } from '../src/state/db.ts';
import { KeyValueStore } from '../src/state/kv.ts';
import { setStockRules } from '../src/state/stock/ruleOffers.ts';
import { benchArgs, sized } from './lib/args.ts';
import { onCleanup } from './lib/cleanup.ts';
import { writeErpSnapshot } from './lib/erpSnapshot.ts';
import { type LoopFigures, watchLoop } from './lib/loopBlocks.ts';
import { emitResult, fmtInt } from './lib/result.ts';

const CASES = [
  'guard-pass',
  'guard-held',
  'full-export',
  'repeats',
  'rules',
  'snapshot-guard',
  'snapshot-zero',
] as const;
type Case = (typeof CASES)[number];
const CHILD_MARKER = 'LOOP_CASE ';
const GUARD = { zeroPercent: 50, dropPercent: 80, minKeys: 50 };
/** bench/peaks.ts's rules: about a quarter of the keys change their offer. */
const RULES = [
  { sku: 'DISC-*', exclude: true },
  { kind: 'dc' as const, dc: 'DC-LON', buffer: 2 },
  { sku: 'SKU-00001*', buffer: 5, percent: 50, max: 100 },
  { sku: '*7', max: 500 },
];
const sku = (i: number) => `SKU-${String(i).padStart(7, '0')}`;
const qty = (i: number) => 1 + ((i * 7919) % 10_000);

const started = performance.now();
const args = benchArgs({
  rows: { type: 'string' },
  only: { type: 'string' },
  where: { type: 'boolean', default: false },
  case: { type: 'string' },
  dir: { type: 'string' },
});
const values = args.values;
const rows = sized(values.rows, 1_000_000, args.scale, 10);

interface CaseResult extends LoopFigures {
  readonly seconds: number;
  readonly outcome: string;
}

if (typeof values.case === 'string') await child(values.case as Case, String(values.dir));
else await main();

async function main(): Promise<void> {
  const selected = (
    typeof values.only === 'string' ? values.only.split(',') : [...CASES]
  ) as Case[];
  for (const c of selected) if (!CASES.includes(c)) throw new Error(`unknown case ${c}`);
  const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-bench-loop-'));
  const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const load = loadavg()[0]!;
  const results: Partial<Record<Case, CaseResult>> = {};
  try {
    for (const c of selected) {
      const caseDir = join(dir, c);
      const r = spawnSync(
        process.execPath,
        [
          ...DAEMON_NODE_FLAGS,
          import.meta.filename,
          '--case',
          c,
          '--dir',
          caseDir,
          '--rows',
          String(rows),
          ...(values.where === true ? ['--where'] : []),
        ],
        {
          env: { ...process.env, ...DAEMON_NODE_ENV },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
          maxBuffer: 1 << 20,
        },
      );
      const line = r.stdout.split('\n').find((l) => l.startsWith(CHILD_MARKER));
      if (r.status !== 0 || line === undefined) throw new Error(`${c} failed: ${r.stdout}`);
      const result = JSON.parse(line.slice(CHILD_MARKER.length)) as CaseResult;
      results[c] = result;
      rmSync(caseDir, { recursive: true, force: true });
      const top = result.blocks[0];
      console.log(
        `${c.padEnd(15)} ${result.outcome.padEnd(9)} ${result.seconds.toFixed(2).padStart(6)} s  longest block ${result.loopMaxMs.toFixed(0)} ms${top === undefined ? '' : ` (${top.wallMs} ms, CPU ${top.cpuMs} ms)`}, p99 ${result.loopP99Ms.toFixed(0)} ms`,
      );
      for (const b of values.where === true ? result.blocks : []) {
        console.log(`  block ${b.wallMs} ms (CPU ${b.cpuMs} ms) at ${b.atMs} ms`);
        for (const w of b.where ?? []) console.log(`    ${w}`);
      }
    }
  } finally {
    await removeDir();
  }
  console.log(
    `${fmtInt(rows)} rows; node ${process.version}, ${availableParallelism()} CPUs, load average ${load.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
  );
  if (args.json) {
    emitResult({
      name: 'loop',
      wallS: (performance.now() - started) / 1000,
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
      rows: selected.map((c) => {
        const r = results[c]!;
        const top = r.blocks[0];
        return {
          measure: `${fmtInt(rows)} rows, ${c}: longest event-loop block`,
          result: `${r.loopMaxMs.toFixed(0)} ms${top === undefined ? '' : ` (CPU ${top.cpuMs} ms)`}, p99 ${r.loopP99Ms.toFixed(0)} ms; ${r.outcome} in ${r.seconds.toFixed(2)} s`,
          reference: 'promise: 100 ms',
          ratio: `${(r.loopMaxMs / 100).toFixed(2)}×`,
        };
      }),
      data: { rows, load, results },
    });
  }
}

/** One case: its inputs written, then the ingest alone watched. */
async function child(c: Case, dir: string): Promise<void> {
  const paths = await ensureDataDirs(dir);
  const db = openStateDb(paths.stateDb);
  const deps: IngestDeps = {
    db,
    log: createLogger({ level: 'silent', pretty: false }),
    dataDir: dir,
    dcDirectory: createDcDirectory({ db }),
    maxSkuLength: 64,
  };
  const csv = (file: string, n: number, row: (i: number) => string) =>
    writeLines(join(paths.inbox, file), 'sku,stock_quantity\n', n, row);
  let run: () => Promise<string>;
  const file = (extra: Partial<IngestDeps>) => async () =>
    (await processInboxFile(join(paths.inbox, 'stock.csv'), { ...deps, ...extra })).status;
  const snapshot = (path: string, extra: { guard?: typeof GUARD; absent?: 'zero' }) => async () =>
    (
      await readSnapshot({
        db,
        log: deps.log,
        dataDir: dir,
        dcDirectory: deps.dcDirectory,
        maxSkuLength: 64,
        ...extra,
        snapshotDb: path,
        factoryQuery: 'SELECT sku, stock_quantity FROM factory_stock',
        dcQuery: 'SELECT distribution_centre_code, sku, stock_quantity FROM dc_stock',
      })
    ).status;
  switch (c) {
    case 'guard-pass':
      portalHoldsAll(db, rows);
      await csv('stock.csv', rows, (i) => `${sku(i)},${qty(i) + 1}`);
      run = file({ guard: GUARD });
      break;
    case 'guard-held':
      portalHoldsAll(db, rows);
      await csv('stock.csv', rows, (i) => `${sku(i)},${i % 10 === 0 ? qty(i) : 0}`);
      run = file({ guard: GUARD });
      break;
    case 'full-export': {
      portalHoldsAll(db, rows);
      await csv('stock.csv', Math.ceil(rows / 2), (i) => `${sku(2 * i)},${qty(i)}`);
      const profiles = profilesFileSchema.parse({
        profiles: [{ match: 'stock.csv', absent: 'zero' }],
      }).profiles;
      run = file({ profiles: () => profiles });
      break;
    }
    case 'repeats':
      await csv('stock.csv', rows, (i) => `${sku(i % Math.ceil(rows / 2))},${qty(i)}`);
      run = file({});
      break;
    case 'rules':
      setStockRules(db, RULES);
      await csv('stock.csv', rows, (i) => `${sku(i)},${qty(i)}`);
      run = file({});
      break;
    case 'snapshot-guard':
      portalHoldsAll(db, rows);
      run = snapshot(
        writeErpSnapshot(join(dir, 'erp.db'), rows, sku, (i) => (i % 10 === 0 ? qty(i) : 0)),
        { guard: GUARD },
      );
      break;
    case 'snapshot-zero':
      portalHoldsAll(db, rows);
      run = snapshot(
        writeErpSnapshot(join(dir, 'erp.db'), rows, sku, (i) => (i % 2 === 0 ? qty(i) : undefined)),
        { absent: 'zero' },
      );
      break;
  }
  const loop = await watchLoop({ where: values.where === true });
  const t = performance.now();
  const outcome = await run();
  const seconds = (performance.now() - t) / 1000;
  const figures = await loop.stop();
  db.close();
  console.log(`${CHILD_MARKER}${JSON.stringify({ seconds, outcome, ...figures })}`);
}

/** The portal known to hold factory keys 0 … n − 1 (as after a reconciliation read). */
function portalHoldsAll(db: StateDb, n: number): void {
  db.prepare(
    `WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < ?)
     INSERT INTO remote_stock (kind, dc, sku, quantity, seen_at)
     SELECT 'factory', '', printf('SKU-%07d', i), 1 + ((i * 7919) % 10000), 0 FROM k`,
  ).run(n);
  new KeyValueStore(db).set('remote.read_at.factory', 1);
  new KeyValueStore(db).set('remote.read_at.dc', 1);
}

async function writeLines(path: string, head: string, n: number, row: (i: number) => string) {
  const out = createWriteStream(path);
  out.write(head);
  for (let i = 0; i < n; i += 10_000) {
    let text = '';
    for (let j = i; j < Math.min(n, i + 10_000); j++) text += `${row(j)}\n`;
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}
