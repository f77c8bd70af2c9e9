/**
 * Stock rules benchmark (not a test): a state.db with a million desired keys (half factory, half
 * DC over three centres), then
 * - a file of half a million factory rows ingested (processInboxFile: staged, chunked merge) into
 *   a fresh data dir without rules and into another with rules (the SQL function in the merge);
 * - a change of rules: every key's offered quantity worked out again in one set-based pass
 *   (rederiveOffers), pending marks and the fingerprint included, twice (rules added, then
 *   changed);
 * compared with the floor: one plain-SQL UPDATE of every row (no JavaScript function).
 *
 *   node bench/rules.ts [--keys 1000000] [--quick | --scale S] [--json]
 *
 * (The million keys are seeded through the staged apply, as the daemon applies a file's rows;
 * that is set-up, not measured.)
 */
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { ensureDataDirs } from '../src/config/dataPaths.ts';
import type { StockKind } from '../src/domain/stock.ts';
import type { StockRule } from '../src/domain/stockRules.ts';
import { processInboxFile } from '../src/inventory/ingest/process.ts';
import { createDcDirectory } from '../src/inventory/validate/dcDirectory.ts';
import { createLogger } from '../src/log/logger.ts';
import { openStateDb } from '../src/state/db.ts';
import type { DesiredInput } from '../src/state/stock/desiredStock.ts';
import { rederiveOffers, setStockRules } from '../src/state/stock/ruleOffers.ts';
import { seedDesiredStock } from '../test/helpers/desiredStock.ts';
import { benchArgs, sized } from './lib/args.ts';
import { onCleanup } from './lib/cleanup.ts';
import { emitResult, fmtInt, fmtRatio, peakRssMiB } from './lib/result.ts';

const started = performance.now();
const args = benchArgs({ keys: { type: 'string' } });
const keys = sized(args.values.keys, 1_000_000, args.scale, 10);
const half = Math.floor(keys / 2);
const DCS = ['DC-LON', 'DC-MAN', 'DC-BHX'];

const sku = (i: number) => `SKU-${String(i).padStart(7, '0')}`;

function* rows(kind: StockKind, salt: number): Generator<DesiredInput> {
  const n = kind === 'factory' ? half : keys - half;
  for (let i = 0; i < n; i++) {
    yield {
      dc: kind === 'factory' ? '' : DCS[i % 3]!,
      sku: sku(kind === 'factory' ? i : Math.floor(i / 3)),
      quantity: (i * 7919 + salt) % 10_000,
    };
  }
}

/** The README's example and one broad rule: about a third of all keys change their offer. */
const RULES_A: StockRule[] = [
  { sku: 'DISC-*', exclude: true },
  { kind: 'dc', dc: 'DC-LON', buffer: 2 },
  { sku: 'SKU-00001*', buffer: 5, percent: 50, max: 100 },
  { sku: '*7', max: 500 },
];
/** A later edit: the London buffer raised, the cap dropped. */
const RULES_B: StockRule[] = [
  { sku: 'DISC-*', exclude: true },
  { kind: 'dc', dc: 'DC-LON', buffer: 3 },
  { sku: 'SKU-00001*', buffer: 5, percent: 50, max: 100 },
];

const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-bench-rules-'));
const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
try {
  const db = openStateDb(join(dir, 'state.db'));
  const timed = <T>(fn: () => T): [T, number] => {
    const t = performance.now();
    const out = fn();
    return [out, (performance.now() - t) / 1000];
  };
  const seed = async (salt: number) => {
    await seedDesiredStock(db, dir, 'factory', rows('factory', salt), 'file:1', Date.now());
    await seedDesiredStock(db, dir, 'dc', rows('dc', salt), 'file:2', Date.now());
  };
  const clearPending = () => db.exec('DELETE FROM pending_stock');

  await seed(0);
  clearPending();
  const [first, firstS] = timed(() => {
    setStockRules(db, RULES_A);
    return rederiveOffers(db, Date.now());
  });
  clearPending();
  const [second, secondS] = timed(() => {
    setStockRules(db, RULES_B);
    return rederiveOffers(db, Date.now());
  });
  const [, unchangedS] = timed(() => rederiveOffers(db, Date.now()));
  // The floor: one UPDATE of every key with a plain SQL expression, in one transaction.
  const [, floorS] = timed(() =>
    db.transaction(() => {
      db.prepare('UPDATE desired_stock SET quantity = MAX(0, erp_quantity - 2)').run();
    })(),
  );
  db.close();

  // The real file path, with and without rules, each into a fresh data dir.
  const ingest = async (label: string, rules: StockRule[]) => {
    const dataDir = join(dir, label);
    const paths = await ensureDataDirs(dataDir);
    const file = join(paths.inbox, 'stock.csv');
    const out = createWriteStream(file);
    out.write('sku,stock_quantity\n');
    for (let i = 0; i < half; i += 10_000) {
      let text = '';
      for (let j = i; j < Math.min(half, i + 10_000); j++)
        text += `${sku(j)},${(j * 7919) % 10_000}\n`;
      if (!out.write(text)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const fileDb = openStateDb(join(dataDir, 'state.db'));
    setStockRules(fileDb, rules);
    rederiveOffers(fileDb, Date.now());
    const t = performance.now();
    const outcome = await processInboxFile(file, {
      db: fileDb,
      log: createLogger({ level: 'warn', pretty: false }),
      dataDir,
      dcDirectory: createDcDirectory({ db: fileDb }),
      maxSkuLength: 64,
    });
    const s = (performance.now() - t) / 1000;
    fileDb.close();
    if (outcome.status !== 'processed') throw new Error(`unexpected: ${JSON.stringify(outcome)}`);
    return s;
  };
  const applyPlainS = await ingest('plain', []);
  const applyRulesS = await ingest('rules', RULES_A);

  const rss = peakRssMiB();
  console.log(
    `keys: ${fmtInt(keys)}; node ${process.version}, ${availableParallelism()} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
  );
  console.log(
    `ingest of ${fmtInt(half)} factory rows without rules ${applyPlainS.toFixed(2)} s, with rules ${applyRulesS.toFixed(2)} s`,
  );
  console.log(
    `re-derive (rules added) ${firstS.toFixed(2)} s: ${fmtInt(first.changed)} keys changed, ${fmtInt(first.newlyPending)} pending`,
  );
  console.log(
    `re-derive (rules edited) ${secondS.toFixed(2)} s: ${fmtInt(second.changed)} keys changed, ${fmtInt(second.newlyPending)} pending`,
  );
  console.log(`re-derive (same rules: skipped) ${(unchangedS * 1000).toFixed(1)} ms`);
  console.log(`floor: plain UPDATE of every key ${floorS.toFixed(2)} s`);
  console.log(`peak RSS: ${rss.toFixed(0)} MiB`);
  if (args.json) {
    emitResult({
      name: 'rules',
      wallS: (performance.now() - started) / 1000,
      peakRssMiB: rss,
      rows: [
        {
          measure: `stock rules changed: ${fmtInt(keys)} keys worked out again (${fmtInt(first.changed)} changed)`,
          result: `${firstS.toFixed(2)} s`,
          reference: `floor (plain UPDATE of every key) ${floorS.toFixed(2)} s`,
          ratio: fmtRatio(firstS, floorS),
        },
        {
          measure: `stock rules edited: ${fmtInt(keys)} keys worked out again (${fmtInt(second.changed)} changed)`,
          result: `${secondS.toFixed(2)} s`,
          reference: `floor (plain UPDATE of every key) ${floorS.toFixed(2)} s`,
          ratio: fmtRatio(secondS, floorS),
        },
        {
          measure: `${fmtInt(half)}-row factory file ingested with 4 stock rules`,
          result: `${applyRulesS.toFixed(2)} s`,
          reference: `the same file without rules ${applyPlainS.toFixed(2)} s`,
          ratio: fmtRatio(applyRulesS, applyPlainS),
        },
      ],
      data: {
        keys,
        applyPlainS,
        applyRulesS,
        firstS,
        first,
        secondS,
        second,
        unchangedS,
        floorS,
      },
    });
  }
} finally {
  await removeDir();
}
