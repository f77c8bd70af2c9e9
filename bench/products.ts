/**
 * New products benchmark (not a test): what creating a catalogue of new products costs in calls
 * and time, and that shipments and stock pushes keep flowing meanwhile.
 *
 * The real daemon (`node src/cli/main.ts run`) runs as a child process against the simulator in
 * this process. Two cases, each against its own floor in the same run:
 *
 * 1. **1,000 new products** (50 new brands, a price, an image and stock at creation each) in one
 *    file, at the default budget (3,600 calls an hour). The calls the creation made are counted
 *    by route from the simulator's log: it should cost one creation per product, one per new
 *    brand and a bounded number of reads. Meanwhile a 10-row stock file lands every 2 s and the
 *    ready-to-ship poll runs every 2 s, and a confirmations file lands: the time from each stock
 *    file to the portal holding its values, and the polls made, are compared with the same
 *    before the products file (the floor).
 * 2. **A small budget** (400 calls an hour, the portal's own limit the same): a products file
 *    larger than the creations' share of the hour. Creations stop at their lane's limit (the
 *    calls of the hour less what they leave to polls, pushes and confirmations), while stock
 *    files and polls go on.
 *
 *   node bench/products.ts [--products 1000] [--brands 50] [--quick | --scale S] [--json]
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Simulator } from '../src/simulator/index.ts';
import type { CliProcess } from '../test/helpers/daemonProcess.ts';
import { benchArgs, sized } from './lib/args.ts';
import { cleanupAll } from './lib/cleanup.ts';
import { type BenchDaemon, startBenchDaemon } from './lib/daemon.ts';
import { emitResult, fmtInt, median, peakRssMiB, percentile } from './lib/result.ts';

const args = benchArgs({ products: { type: 'string' }, brands: { type: 'string' } });
const count = sized(args.values.products, 1000, args.scale, 20);
const brands = sized(args.values.brands, 50, args.scale, 2);
const SMALL_PER_HOUR = 400;
const STOCK_EVERY_MS = 2000;
const FLOOR_MS = args.quick ? 8000 : 20_000;
const SMALL_WINDOW_MS = args.quick ? 15_000 : 40_000;
const DESCRIPTION =
  'Solid oak, oiled by hand, with a woven paper-cord seat: made in a small workshop to last for decades.';
/** Both cases: polls every 2 s, no reading (it would only add calls), files taken quickly. */
const SETTINGS = {
  SHIPMENTS_POLL_CRON: '*/2 * * * * *',
  RECONCILE_CRON: '0 0 1 1 *',
  RECONCILE_MIN_INTERVAL_MS: '0',
  INBOX_STABILITY_MS: '200',
};
const seeded = (i: number) => `SKU-${String(i + 1).padStart(7, '0')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function drop(bench: BenchDaemon, name: string, content: string): number {
  const temp = join(bench.inbox, `.${name}.tmp`);
  writeFileSync(temp, content);
  renameSync(temp, join(bench.inbox, name));
  return Date.now();
}

/** A products file of `n` new products, `b` new brands among them. */
function productsFile(prefix: string, n: number, b: number): string {
  const lines = [
    'sku,name,description,brand,images,price@UK,price_currency@UK,tax_rate_id@UK,factory_stock,stock@DC-LON',
  ];
  for (let i = 0; i < n; i++) {
    lines.push(
      `${prefix}-${i + 1},Oak chair ${i + 1},"${DESCRIPTION}",Brand ${prefix} ${i % b},https://cdn.example.com/${prefix}/${i + 1}.jpg,${(19 + (i % 80)).toFixed(2)},GBP,1,${i % 50},${i % 7}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Stock files every STOCK_EVERY_MS until `until()`: each sets 10 seeded SKUs to a new value; the
 * time from its rename to the portal holding all 10 is its latency.
 */
async function stockFlow(
  bench: BenchDaemon,
  tag: string,
  base: number,
  until: () => boolean,
): Promise<number[]> {
  const latencies: number[] = [];
  for (let n = 0; !until(); n++) {
    // A value no earlier file set: every file changes its 10 keys.
    const value = base + n;
    const skus = Array.from({ length: 10 }, (_, i) => seeded((n * 10 + i) % 500));
    const at = drop(
      bench,
      `${tag}-stock-${n}.csv`,
      `sku,stock_quantity\n${skus.map((s) => `${s},${value}`).join('\n')}\n`,
    );
    const held = () => skus.every((s) => bench.sim.store.factoryStock(s)?.stock_quantity === value);
    while (!held()) {
      if (Date.now() - at > 120_000) throw new Error(`${tag}: stock file ${n} not pushed in 120 s`);
      await sleep(5);
    }
    latencies.push(Date.now() - at);
    await sleep(Math.max(0, at + STOCK_EVERY_MS - Date.now()));
  }
  return latencies;
}

/** A confirmations file for `k` orders ready today; resolves with ms until all are shipped. */
async function confirmations(bench: BenchDaemon, name: string, k: number): Promise<number> {
  const ready = bench.sim.store
    .allShipments()
    .filter((s) => s.status === 'pending')
    .slice(0, k)
    .map((s) => s.order_number);
  const at = drop(
    bench,
    name,
    `order_number,carrier,tracking_number\n${ready.map((o, i) => `${o},DHL,TRK${name.length}${i}`).join('\n')}\n`,
  );
  while (!ready.every((o) => bench.sim.store.shipment(o)?.status !== 'pending')) {
    if (Date.now() - at > 120_000) throw new Error(`${name}: not confirmed in 120 s`);
    await sleep(5);
  }
  return Date.now() - at;
}

function callsBetween(sim: Simulator, from: number, to: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of sim.stats().requests) {
    if (r.at < from || r.at > to || r.route === 'POST /login') continue;
    out[r.route] = (out[r.route] ?? 0) + 1;
  }
  return out;
}

const created = (d: CliProcess) => d.lines.filter((l) => l.event === 'product.created').length;

async function warmUp(bench: BenchDaemon, d: CliProcess): Promise<void> {
  drop(bench, 'warm.csv', `sku,stock_quantity\n${seeded(0)},1\n`);
  await d.waitFor((l) => l.event === 'sync.pushed', 60_000, 'the first push');
}

const started = performance.now();
const rows: Array<{ measure: string; result: string; reference: string; ratio: string }> = [];
const data: Record<string, unknown> = { products: count, brands };

try {
  // Case 1: a catalogue of new products at the default budget.
  const big = await startBenchDaemon(
    'products',
    { products: 5000 },
    { ...SETTINGS, CATALOGUE_MAX_NEW: String(count) },
  );
  const d = await big.start();
  await warmUp(big, d);
  console.error(`products: floor ${FLOOR_MS / 1000} s of stock files and polls`);
  const floorFrom = Date.now();
  const floorConfirm = confirmations(big, 'floor-confirm.csv', 3);
  const floorStock = await stockFlow(big, 'floor', 1000, () => Date.now() - floorFrom >= FLOOR_MS);
  const floorConfirmMs = await floorConfirm;
  const floorTo = Date.now();
  const floorCalls = callsBetween(big.sim, floorFrom, floorTo);

  console.error(
    `products: ${count} new products, ${brands} new brands, with stock files and polls`,
  );
  const from = drop(big, 'new-products.csv', productsFile('NEW', count, brands));
  const done = () => created(d) >= count;
  const during = stockFlow(big, 'during', 2000, done);
  const duringConfirmMs = await confirmations(big, 'during-confirm.csv', 3);
  const duringStock = await during;
  await d.waitFor(() => done(), 600_000, `${count} products created`);
  const lastCreated = d.lines.filter((l) => l.event === 'product.created').at(-1);
  const to = Date.parse(String(lastCreated?.time));
  const calls = callsBetween(big.sim, from, to);
  const creationS = (to - from) / 1000;
  const reads =
    (calls['GET /sites'] ?? 0) +
    (calls['GET /tax-rates'] ?? 0) +
    (calls['GET /distribution-centres'] ?? 0) +
    (calls['GET /brands'] ?? 0) +
    (calls['GET /products/:sku'] ?? 0);
  const polls = (c: Record<string, number>) => c['GET /shipments/ready-to-ship'] ?? 0;
  const bigRss = big.daemonPeakRssMiB();
  await big.close();
  Object.assign(data, {
    creationS,
    calls,
    floorCalls,
    floorS: (floorTo - floorFrom) / 1000,
    floorStockMs: floorStock,
    duringStockMs: duringStock,
    floorConfirmMs,
    duringConfirmMs,
    bigDaemonPeakRssMiB: bigRss,
  });
  console.log(
    `products: ${fmtInt(count)} new products, ${brands} new brands, created in ${creationS.toFixed(1)} s (${(count / creationS).toFixed(0)} a second)`,
  );
  for (const [route, n] of Object.entries(calls)) console.log(`  ${route}: ${n}`);
  const pct = (v: number[]) =>
    `median ${fmtInt(median(v))} ms, p95 ${fmtInt(percentile(v, 95))} ms`;
  console.log(`stock files, file → portal: floor ${pct(floorStock)} (${floorStock.length} files)`);
  console.log(
    `                            while creating ${pct(duringStock)} (${duringStock.length} files)`,
  );
  console.log(
    `polls every 2 s: floor ${polls(floorCalls)} in ${((floorTo - floorFrom) / 1000).toFixed(0)} s, while creating ${polls(calls)} in ${creationS.toFixed(0)} s`,
  );
  console.log(
    `3 confirmations, file → portal: floor ${floorConfirmMs} ms, while creating ${duringConfirmMs} ms`,
  );
  rows.push(
    {
      measure: `${fmtInt(count)} new products, ${brands} new brands, one file (real daemon, 3,600 calls/h)`,
      result: `${fmtInt(calls['POST /products'] ?? 0)} creations + ${calls['POST /brands'] ?? 0} brands + ${reads} reads in ${creationS.toFixed(1)} s`,
      reference: `${fmtInt(count)} + ${brands} + a bounded number of reads`,
      ratio: `${(((calls['POST /products'] ?? 0) + (calls['POST /brands'] ?? 0) + reads) / (count + brands)).toFixed(3)}×`,
    },
    {
      measure: 'stock file (10 rows) → portal, while creating vs before',
      result: pct(duringStock),
      reference: `floor ${pct(floorStock)}`,
      ratio: `${(median(duringStock) / median(floorStock)).toFixed(2)}× median`,
    },
    {
      measure: 'ready-to-ship polls every 2 s, while creating',
      result: `${polls(calls)} in ${creationS.toFixed(0)} s`,
      reference: `${Math.floor(creationS / 2)} due`,
      ratio: `confirmations ${duringConfirmMs} ms (floor ${floorConfirmMs} ms)`,
    },
  );

  // Case 2: a small budget, more products than the creations' share of the hour.
  const small = await startBenchDaemon(
    'products-small',
    { products: 1000, requestsPerHour: SMALL_PER_HOUR, rateWindow: 'sliding' },
    {
      ...SETTINGS,
      API_REQUESTS_PER_HOUR: String(SMALL_PER_HOUR),
      CATALOGUE_MAX_NEW: String(SMALL_PER_HOUR),
    },
  );
  const s = await small.start();
  await warmUp(small, s);
  console.error(`products: a small budget (${SMALL_PER_HOUR}/h), ${SMALL_PER_HOUR} new products`);
  const smallFrom = drop(small, 'many.csv', productsFile('MANY', SMALL_PER_HOUR, 4));
  const smallStock = await stockFlow(
    small,
    'small',
    3000,
    () => Date.now() - smallFrom >= SMALL_WINDOW_MS,
  );
  const smallConfirmMs = await confirmations(small, 'small-confirm.csv', 3);
  const smallTo = Date.now();
  const smallCalls = callsBetween(small.sim, smallFrom, smallTo);
  const smallCreated = created(s);
  const lane = s.lines.filter((l) => l.event === 'queue.paused' && l.queue === 'products').length;
  const used = small.sim.stats().requests.filter((r) => r.route !== 'POST /login').length;
  const smallRss = small.daemonPeakRssMiB();
  await small.close();
  // Creations leave API_STOCK_RESERVE + API_POLL_RESERVE + API_PRODUCTS_RESERVE: 8.33 + 16.67 + 8.33 %.
  const leaves =
    Math.round(SMALL_PER_HOUR * 0.0833) +
    Math.round(SMALL_PER_HOUR * 0.1667) +
    Math.round(SMALL_PER_HOUR * 0.0833);
  Object.assign(data, {
    small: {
      perHour: SMALL_PER_HOUR,
      windowS: (smallTo - smallFrom) / 1000,
      created: smallCreated,
      calls: smallCalls,
      usedInAll: used,
      creationsLeave: leaves,
      productsPaused: lane,
      stockMs: smallStock,
      confirmMs: smallConfirmMs,
      daemonPeakRssMiB: smallRss,
    },
  });
  console.log('');
  console.log(
    `small budget ${SMALL_PER_HOUR}/h: ${smallCreated} of ${SMALL_PER_HOUR} products created in ${((smallTo - smallFrom) / 1000).toFixed(0)} s, then the lane waits (queue.paused ${lane}×); ${used} calls in all since the start`,
  );
  for (const [route, n] of Object.entries(smallCalls)) console.log(`  ${route}: ${n}`);
  console.log(
    `  stock files → portal meanwhile: ${pct(smallStock)} (${smallStock.length} files); 3 confirmations ${smallConfirmMs} ms`,
  );
  rows.push({
    measure: `small budget ${SMALL_PER_HOUR}/h: ${SMALL_PER_HOUR} new products, stock files and polls every 2 s`,
    result: `${smallCreated} created, then waiting; stock ${pct(smallStock)}, ${polls(smallCalls)} polls`,
    reference: `creations stop at ${SMALL_PER_HOUR - leaves} calls of the hour (they leave ${leaves})`,
    ratio: `${used} calls in all`,
  });

  const wallS = (performance.now() - started) / 1000;
  console.log(
    `wall ${wallS.toFixed(1)} s, peak RSS ${peakRssMiB().toFixed(0)} MiB (bench), ${bigRss?.toFixed(0) ?? '?'} MiB (daemon)`,
  );
  if (args.json) {
    emitResult({
      name: 'products',
      wallS,
      peakRssMiB: peakRssMiB(),
      daemonPeakRssMiB: bigRss,
      rows,
      data,
    });
  }
} finally {
  await cleanupAll();
}
