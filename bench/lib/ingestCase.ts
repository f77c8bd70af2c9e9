/**
 * One ingest measured in a process of its own (so its peak RSS is the ingest's, not the file
 * generation's or the floor's), for bench/ingest.ts:
 *
 *   node bench/lib/ingestCase.ts file DATA_DIR FILE_NAME [FULL|NORMAL] [--where]
 *   node bench/lib/ingestCase.ts snapshot DATA_DIR SNAPSHOT_PATH [FULL|NORMAL] [--where]
 *
 * Prints one JSON line: {seconds, cpuS, peakRssMiB, loopMaxMs, loopP99Ms, blocks, rowsAccepted,
 * outcome}; cpuS is the CPU time of the whole process (every thread) during the ingest. The event loop is watched (bench/lib/loopBlocks.ts) from just before the ingest
 * starts to just after it ends: `blocks` are its longest blocks over 50 ms, with the CPU time
 * each took and, with `--where`, the code each ran.
 */
import { join } from 'node:path';
import { processInboxFile } from '../../src/inventory/ingest/process.ts';
import { readSnapshot } from '../../src/inventory/snapshot/read.ts';
import { createDcDirectory } from '../../src/inventory/validate/dcDirectory.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openStateDb } from '../../src/state/db.ts';
import { replaceDistributionCentres } from '../../src/state/stock/distributionCentres.ts';
import { watchLoop } from './loopBlocks.ts';

const where = process.argv.includes('--where');
const [mode, dataDir, target, synchronous = 'FULL'] = process.argv
  .slice(2)
  .filter((a) => a !== '--where');
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
const loop = await watchLoop({ where });
const t = performance.now();
const cpu = process.cpuUsage();
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
const used = process.cpuUsage(cpu);
const figures = await loop.stop();
db.close();
console.log(
  JSON.stringify({
    seconds,
    cpuS: (used.user + used.system) / 1e6,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    ...figures,
    rowsAccepted,
    outcome,
  }),
);
