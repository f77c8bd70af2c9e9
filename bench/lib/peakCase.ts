/**
 * One step measured in a process of its own, on a state.db prepared by bench/peaks.ts, so that
 * its peak RSS is the step's and not the set-up's:
 *
 *   node bench/lib/peakCase.ts guard-file DATA_DIR FILE_NAME   a stock file ingested with the guard rails' check
 *   node bench/lib/peakCase.ts plain-file DATA_DIR FILE_NAME   the same without the check
 *   node bench/lib/peakCase.ts guard-rows DATA_DIR N           the check of N rows given in memory (as `plan` and a snapshot read do)
 *   node bench/lib/peakCase.ts rules DATA_DIR                  stock rules changed: every key worked out again
 *   node bench/lib/peakCase.ts floor DATA_DIR                  one plain UPDATE of every desired key
 *
 * Prints one JSON line: {seconds, peakRssMiB, baseRssMiB, outcome}. baseRssMiB is the process's
 * RSS just before the step (Node, the modules, the open state.db).
 */
import { join } from 'node:path';
import { guardStockFile } from '../../src/inventory/apply/guardFile.ts';
import { processInboxFile } from '../../src/inventory/ingest/process.ts';
import { createDcDirectory } from '../../src/inventory/validate/dcDirectory.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openStateDb } from '../../src/state/db.ts';
import { rederiveOffers, setStockRules } from '../../src/state/stock/ruleOffers.ts';

export const GUARD = { zeroPercent: 50, dropPercent: 80, minKeys: 50 };
/** The README's example and one broad rule: about a quarter of all keys change their offer. */
export const RULES = [
  { sku: 'DISC-*', exclude: true },
  { kind: 'dc' as const, dc: 'DC-LON', buffer: 2 },
  { sku: 'SKU-00001*', buffer: 5, percent: 50, max: 100 },
  { sku: '*7', max: 500 },
];
export const guardSku = (i: number) => `SKU-${String(i).padStart(7, '0')}`;
export const guardQty = (i: number) => 1 + ((i * 7919) % 10_000);

const [step, dataDir, arg] = process.argv.slice(2);
if (step === undefined || dataDir === undefined) {
  console.error('usage: peakCase.ts guard-file|plain-file|guard-rows|rules|floor DATA_DIR [ARG]');
  process.exit(2);
}
const db = openStateDb(join(dataDir, 'state.db'));
const log = createLogger({ level: 'warn', pretty: false });
const rssMiB = () => process.memoryUsage().rss / 2 ** 20;
const base = rssMiB();
const t = performance.now();
let outcome: string;
switch (step) {
  case 'guard-file':
  case 'plain-file': {
    const out = await processInboxFile(join(dataDir, 'inbox', arg!), {
      db,
      log,
      dataDir,
      dcDirectory: createDcDirectory({ db }),
      maxSkuLength: 64,
      ...(step === 'guard-file' ? { guard: GUARD } : {}),
    });
    outcome = out.status;
    break;
  }
  case 'guard-rows': {
    const n = Number(arg);
    function* rows() {
      for (let i = 0; i < n; i++) yield { dc: '', sku: guardSku(i), quantity: guardQty(i) + 2 };
    }
    const check = guardStockFile(db, GUARD, {
      contentHash: 'bench',
      kind: 'factory',
      rows: rows(),
    });
    outcome = check.hold ? 'held' : 'passed';
    break;
  }
  case 'rules': {
    setStockRules(db, RULES);
    const r = rederiveOffers(db, Date.now());
    outcome = `${r.changed} changed`;
    break;
  }
  case 'floor': {
    db.transaction(() => {
      db.prepare('UPDATE desired_stock SET quantity = MAX(0, erp_quantity - 2)').run();
    })();
    outcome = 'updated';
    break;
  }
  default:
    console.error(`unknown step ${step}`);
    process.exit(2);
}
const seconds = (performance.now() - t) / 1000;
db.close();
console.log(
  JSON.stringify({
    seconds,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    baseRssMiB: base,
    outcome,
  }),
);
