/**
 * One ingest measured in a process of its own (so its peak RSS is the ingest's, not the file
 * generation's or the floor's), for bench/ingest.ts:
 *
 *   node bench/lib/ingestCase.ts file DATA_DIR FILE_NAME [FULL|NORMAL]
 *   node bench/lib/ingestCase.ts snapshot DATA_DIR SNAPSHOT_PATH [FULL|NORMAL]
 *
 * Prints one JSON line: {seconds, peakRssMiB, loopMaxMs, loopP99Ms, rowsAccepted, outcome}.
 * The event loop's delay is sampled by perf_hooks.monitorEventLoopDelay (10 ms resolution) from
 * just before the ingest starts to just after it ends.
 */
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { processInboxFile } from '../../src/inventory/ingest/process.ts';
import { readSnapshot } from '../../src/inventory/snapshot/read.ts';
import { createDcDirectory } from '../../src/inventory/validate/dcDirectory.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openStateDb } from '../../src/state/db.ts';
import { replaceDistributionCentres } from '../../src/state/stock/distributionCentres.ts';

const [mode, dataDir, target, synchronous = 'FULL'] = process.argv.slice(2);
if ((mode !== 'file' && mode !== 'snapshot') || !dataDir || !target) {
  console.error('usage: ingestCase.ts file|snapshot DATA_DIR FILE_NAME|SNAPSHOT_PATH');
  process.exit(2);
}
const db = openStateDb(join(dataDir, 'state.db'));
db.pragma(`synchronous = ${synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
// The DC benchmark's centres, known and active (no portal to refresh from).
replaceDistributionCentres(
  db,
  ['DC-1', 'DC-2', 'DC-3'].map((code) => ({ code, is_active: true })),
  Date.now(),
);
const log = createLogger({ level: 'warn', pretty: false });
const dcDirectory = createDcDirectory({ db });
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
const t = performance.now();
let rowsAccepted: number;
let outcome: string;
if (mode === 'file') {
  const out = await processInboxFile(join(dataDir, 'inbox', target), {
    db,
    log,
    dataDir,
    dcDirectory,
    maxSkuLength: 64,
  });
  rowsAccepted = out.rowsAccepted;
  outcome = out.status;
} else {
  const out = await readSnapshot({
    db,
    log,
    dataDir,
    dcDirectory,
    maxSkuLength: 64,
    snapshotDb: target,
    factoryQuery: 'SELECT sku, stock_quantity FROM factory_stock',
    dcQuery: 'SELECT distribution_centre_code, sku, stock_quantity FROM dc_stock',
  });
  rowsAccepted = out.status === 'read' ? out.factory.rowsAccepted + out.dc.rowsAccepted : 0;
  outcome = out.status;
}
const seconds = (performance.now() - t) / 1000;
loop.disable();
db.close();
console.log(
  JSON.stringify({
    seconds,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    loopMaxMs: loop.max / 1e6,
    loopP99Ms: loop.percentile(99) / 1e6,
    rowsAccepted,
    outcome,
  }),
);
