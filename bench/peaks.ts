/**
 * Peaks benchmark (not a test; issue #29, point 5): the guard rails' check and the stock rules'
 * re-evaluation on a million keys, each step in a child process of its own
 * (bench/lib/peakCase.ts) so that its peak RSS is the step's alone, each against its floor:
 *
 * - guard: state.db knows N factory keys on the portal and holds N desired keys; a file of N
 *   rows is ingested with the guard rails' check (staged, checked, applied) against the same
 *   ingest without it; then the check of N rows given in memory (as `plan` and a snapshot read
 *   make it);
 * - rules: N desired keys (half factory, half DC over three centres); stock rules set: every key
 *   worked out again (rederiveOffers), against one plain UPDATE of every key; three of each,
 *   alternately, on fresh copies of the seeded state.db, the median shown (peak RSS: the highest).
 *
 *   node bench/peaks.ts [--keys 1000000] [--quick | --scale S] [--json]
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { DAEMON_NODE_ENV, DAEMON_NODE_FLAGS } from '../src/cli/nodeFlags.ts';
import { ensureDataDirs } from '../src/config/dataPaths.ts';
import { openStateDb } from '../src/state/db.ts';
import { benchArgs, sized } from './lib/args.ts';
import { onCleanup } from './lib/cleanup.ts';
import { emitResult, fmtInt, fmtRatio, peakRssMiB } from './lib/result.ts';

const started = performance.now();
const args = benchArgs({ keys: { type: 'string' } });
const keys = sized(args.values.keys, 1_000_000, args.scale, 100);
const half = Math.floor(keys / 2);
/** The memory goal of issue #29 for both steps. */
const LIMIT_MIB = 200;

const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-bench-peaks-'));
const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }));

interface Step {
  seconds: number;
  peakRssMiB: number;
  baseRssMiB: number;
  outcome: string;
}

function step(name: string, dataDir: string, arg?: string): Step {
  const out = execFileSync(
    process.execPath,
    [
      // As the daemon runs (its old-generation ceiling included): a step that needed more would
      // stop the daemon, and this run with it.
      ...DAEMON_NODE_FLAGS,
      join(import.meta.dirname, 'lib', 'peakCase.ts'),
      name,
      dataDir,
      ...(arg === undefined ? [] : [arg]),
    ],
    {
      env: { ...process.env, ...DAEMON_NODE_ENV },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return JSON.parse(out.trim().split('\n').at(-1)!) as Step;
}

const sku = (i: number) => `SKU-${String(i).padStart(7, '0')}`;
const qty = (i: number) => 1 + ((i * 7919) % 10_000);

async function writeCsv(path: string, n: number, quantity: (i: number) => number): Promise<void> {
  const out = createWriteStream(path);
  out.write('sku,stock_quantity\n');
  for (let i = 0; i < n; i += 10_000) {
    let text = '';
    for (let j = i; j < Math.min(n, i + 10_000); j++) text += `${sku(j)},${quantity(j)}\n`;
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

try {
  // Guard rails: the portal is known to hold every key (as after a reconciliation).
  const guardDir = join(dir, 'guard');
  const paths = await ensureDataDirs(guardDir);
  const db = openStateDb(paths.stateDb);
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
     INSERT INTO remote_stock (kind, dc, sku, quantity, seen_at)
     SELECT 'factory', '', printf('SKU-%07d', i), 1 + ((i * 7919) % 10000), 0 FROM n`,
  ).run(keys);
  db.close();
  await writeCsv(join(paths.inbox, 'initial.csv'), keys, (i) => qty(i) + 3);
  step('plain-file', guardDir, 'initial.csv');
  await writeCsv(join(paths.inbox, 'reference.csv'), keys, (i) => qty(i) + 1);
  const reference = step('plain-file', guardDir, 'reference.csv');
  await writeCsv(join(paths.inbox, 'guarded.csv'), keys, (i) => qty(i) + 2);
  const guarded = step('guard-file', guardDir, 'guarded.csv');
  const inMemory = step('guard-rows', guardDir, String(keys));

  // Stock rules: a million desired keys, half factory, half DC.
  const rulesDir = join(dir, 'rules');
  await ensureDataDirs(rulesDir);
  const rdb = openStateDb(join(rulesDir, 'state.db'));
  rdb
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @keys)
     INSERT INTO desired_stock (kind, dc, sku, quantity, erp_quantity, excluded, source, updated_at)
     SELECT CASE WHEN i < @half THEN 'factory' ELSE 'dc' END,
            CASE WHEN i < @half THEN '' ELSE CASE (i - @half) % 3 WHEN 0 THEN 'DC-LON' WHEN 1 THEN 'DC-MAN' ELSE 'DC-BHX' END END,
            printf('SKU-%07d', CASE WHEN i < @half THEN i ELSE (i - @half) / 3 END),
            (i * 7919) % 10000, (i * 7919) % 10000, 0, 'file:1', 0 FROM n`,
    )
    .run({ keys, half });
  rdb.close();
  // Three times each, alternately, each on a fresh copy of the seeded state.db: the median (the
  // machine is shared; one pass of either can be slowed by a neighbour).
  const copy = (name: string) => {
    const to = join(dir, name);
    mkdirSync(to, { recursive: true });
    copyFileSync(join(rulesDir, 'state.db'), join(to, 'state.db'));
    return to;
  };
  const ruleRuns: Step[] = [];
  const floorRuns: Step[] = [];
  for (let i = 0; i < 3; i++) {
    ruleRuns.push(step('rules', copy(`rules-${i}`)));
    floorRuns.push(step('floor', copy(`floor-${i}`)));
  }
  const middle = (runs: Step[]) => [...runs].sort((a, b) => a.seconds - b.seconds)[1]!;
  const rules = middle(ruleRuns);
  const floor = middle(floorRuns);
  rules.peakRssMiB = Math.max(...ruleRuns.map((r) => r.peakRssMiB));

  const within = (s: Step) => (s.peakRssMiB <= LIMIT_MIB ? 'within' : 'OVER');
  console.log(
    `keys: ${fmtInt(keys)}; node ${process.version}, ${availableParallelism()} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
  );
  for (const [name, s] of Object.entries({ reference, guarded, inMemory, rules, floor })) {
    console.log(
      `${name.padEnd(10)} ${s.seconds.toFixed(2)} s, peak RSS ${s.peakRssMiB.toFixed(0)} MiB (before the step ${s.baseRssMiB.toFixed(0)} MiB): ${s.outcome}`,
    );
  }
  if (args.json) {
    emitResult({
      name: 'peaks',
      wallS: (performance.now() - started) / 1000,
      peakRssMiB: peakRssMiB(),
      rows: [
        {
          measure: `guard rails' check, ${fmtInt(keys)}-row file against ${fmtInt(keys)} known keys, applied (child process): peak RSS`,
          result: `${guarded.peakRssMiB.toFixed(0)} MiB, ${guarded.seconds.toFixed(2)} s`,
          reference: `the same ingest without the check ${reference.peakRssMiB.toFixed(0)} MiB, ${reference.seconds.toFixed(2)} s; goal ${LIMIT_MIB} MiB (${within(guarded)})`,
          ratio: fmtRatio(guarded.peakRssMiB, reference.peakRssMiB),
        },
        {
          measure: `guard rails' check of ${fmtInt(keys)} rows in memory (plan, snapshot) (child process): peak RSS`,
          result: `${inMemory.peakRssMiB.toFixed(0)} MiB, ${inMemory.seconds.toFixed(2)} s`,
          reference: `process before the check ${inMemory.baseRssMiB.toFixed(0)} MiB; goal ${LIMIT_MIB} MiB (${within(inMemory)})`,
          ratio: fmtRatio(inMemory.peakRssMiB, LIMIT_MIB),
        },
        {
          measure: `stock rules set: ${fmtInt(keys)} keys worked out again (${rules.outcome}) (child process)`,
          result: `${rules.seconds.toFixed(2)} s, peak RSS ${rules.peakRssMiB.toFixed(0)} MiB`,
          reference: `floor (plain UPDATE of every key) ${floor.seconds.toFixed(2)} s, ${floor.peakRssMiB.toFixed(0)} MiB; goal ≤ 2×, ${LIMIT_MIB} MiB (${within(rules)})`,
          ratio: fmtRatio(rules.seconds, floor.seconds),
        },
      ],
      data: { keys, reference, guarded, inMemory, rules, floor },
    });
  }
} finally {
  await removeDir();
}
