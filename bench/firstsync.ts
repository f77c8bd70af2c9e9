/**
 * First-sync benchmark (not a test; issue #29), the real daemon (`node src/cli/main.ts run`) as a
 * child process against the simulator in this process:
 *
 * - first sync: N SKUs (default 5,000), a factory file and a file for the 3 centres, about 10 %
 *   of the rows differing from the portal, both in the inbox when the daemon starts, the portal's
 *   bulk limit 250 and unknown to the daemon (BULK_BATCH_SIZE 1000), idle re-reading on (its
 *   default interval): stock calls until the portal holds both files and the daemon is idle,
 *   against the cheapest plan knowing nothing (per kind: read every page and push the
 *   differences, or push every row, at the portal's limit); refusals shown apart, against
 *   ⌈log₂(1000 / 250)⌉ + 1;
 * - a budget of 40 calls an hour with shipment polls every 2 s and a backlog of 200 factory
 *   differences (20 batches of 10): bulk calls in the first WINDOW seconds, against the calls the
 *   reserves keep for pushes in an hour when polls take all they may (40 − 3 − 30 = 7).
 *
 *   node bench/firstsync.ts [--skus 5000] [--window-s 60] [--quick | --scale S] [--json]
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACTIVE_DC_CODES } from '../src/simulator/index.ts';
import { benchArgs, sized } from './lib/args.ts';
import { type BenchDaemon, startBenchDaemon } from './lib/daemon.ts';
import { emitResult, fmtInt, fmtRatio, peakRssMiB } from './lib/result.ts';

const args = benchArgs({ skus: { type: 'string' }, 'window-s': { type: 'string' } });
const skus = sized(args.values.skus, 5000, args.scale, 500);
const windowS = sized(args.values['window-s'], 60, 1, 10);
const LIMIT = 250;
const BATCH = 1000;
const STOCK = new Set([
  'GET /factory-stocks',
  'GET /distribution-centre-stocks',
  'POST /factory-stocks/bulk-update',
  'POST /distribution-centre-stocks/bulk-update',
]);
const started = performance.now();

function drop(bench: BenchDaemon, name: string, text: string): void {
  mkdirSync(bench.inbox, { recursive: true });
  const temp = join(bench.inbox, `.${name}.tmp`);
  writeFileSync(temp, text);
  renameSync(temp, join(bench.inbox, name));
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function firstSync() {
  const bench = await startBenchDaemon(
    'firstsync',
    { products: skus, maxBulkItems: LIMIT, shipments: 0 },
    { BULK_BATCH_SIZE: String(BATCH), INBOX_STABILITY_MS: '200' },
  );
  try {
    const store = bench.sim.store;
    const factory: Array<[string, number]> = [];
    for (let i = 0; i < skus; i++) {
      const sku = store.skuAt(i);
      const q = store.factoryStock(sku)!.stock_quantity;
      factory.push([sku, i % 10 === 0 ? q + 1 : q]);
    }
    const dc: Array<[string, string, number]> = [];
    ACTIVE_DC_CODES.forEach((code, c) => {
      for (let i = 0; i < skus; i++) {
        const sku = store.skuAt(i);
        const q = store.dcStock(code, sku)!.stock_quantity;
        dc.push([code, sku, (i + c) % 10 === 3 ? q + 1 : q]);
      }
    });
    drop(
      bench,
      'factory.csv',
      `sku,stock_quantity\n${factory.map((r) => r.join(',')).join('\n')}\n`,
    );
    drop(
      bench,
      'dc.csv',
      `distribution_centre_code,sku,stock_quantity\n${dc.map((r) => r.join(',')).join('\n')}\n`,
    );
    const t = performance.now();
    await bench.start();
    await until(
      () =>
        factory.every(([s, q]) => store.factoryStock(s)?.stock_quantity === q) &&
        dc.every(([c, s, q]) => store.dcStock(c, s)?.stock_quantity === q),
      120_000,
      'the portal to hold both files',
    );
    const syncedS = (performance.now() - t) / 1000;
    // Idle: no stock call for 5 s (the idle re-reading lane, if it were to read, reads at once).
    let last = bench.sim.stats().requests.length;
    let quietSince = Date.now();
    await until(
      () => {
        const n = bench.sim.stats().requests.filter((r) => STOCK.has(r.route)).length;
        if (n !== last) {
          last = n;
          quietSince = Date.now();
        }
        return Date.now() - quietSince >= 5000;
      },
      120_000,
      'the daemon to stop calling',
    );
    const calls = bench.sim.stats().requests.filter((r) => STOCK.has(r.route));
    const refused = calls.filter((r) => r.status >= 300).length;
    const by = (route: string) => calls.filter((r) => r.route === route).length;
    const factoryCheapest = Math.min(
      Math.ceil(skus / 2500) + Math.ceil(skus / 10 / LIMIT),
      Math.ceil(skus / LIMIT),
    );
    const dcCheapest = Math.min(
      Math.ceil(dc.length / 100) + Math.ceil(dc.length / 10 / LIMIT),
      ACTIVE_DC_CODES.length * Math.ceil(skus / LIMIT),
    );
    const daemonRss = bench.daemonPeakRssMiB();
    return {
      calls: calls.length,
      refused,
      reads: { factory: by('GET /factory-stocks'), dc: by('GET /distribution-centre-stocks') },
      writes: {
        factory: by('POST /factory-stocks/bulk-update'),
        dc: by('POST /distribution-centre-stocks/bulk-update'),
      },
      cheapest: factoryCheapest + dcCheapest,
      refusalBound: Math.ceil(Math.log2(BATCH / LIMIT)) + 1,
      syncedS,
      daemonRss,
    };
  } finally {
    await bench.close();
  }
}

async function smallBudget() {
  const bench = await startBenchDaemon(
    'small-budget',
    { products: 500, shipments: 5 },
    {
      API_REQUESTS_PER_HOUR: '40',
      SHIPMENTS_POLL_CRON: '*/2 * * * * *',
      BULK_BATCH_SIZE: '10',
      INBOX_STABILITY_MS: '200',
      RECONCILE_MIN_INTERVAL_MS: '0',
    },
  );
  try {
    const store = bench.sim.store;
    const rows: Array<[string, number]> = [];
    for (let i = 0; i < 200; i++) {
      const sku = store.skuAt(i);
      rows.push([sku, store.factoryStock(sku)!.stock_quantity + 1]);
    }
    drop(bench, 'stock.csv', `sku,stock_quantity\n${rows.map((r) => r.join(',')).join('\n')}\n`);
    const from = Date.now();
    await bench.start();
    await new Promise((r) => setTimeout(r, windowS * 1000));
    const calls = bench.sim.stats().requests.filter((r) => r.route !== 'POST /login');
    const pushes = calls.filter((r) => r.route === 'POST /factory-stocks/bulk-update');
    const polls = calls.filter((r) => r.route.includes('ready-to-ship')).length;
    const landed = rows.filter(([s, q]) => store.factoryStock(s)?.stock_quantity === q).length;
    return {
      windowS: (Date.now() - from) / 1000,
      calls: calls.length,
      pushes: pushes.length,
      polls,
      landed,
      pushFloor: 40 - 3 - 30,
      daemonRss: bench.daemonPeakRssMiB(),
    };
  } finally {
    await bench.close();
  }
}

const first = await firstSync();
const budget = await smallBudget();
const wallS = (performance.now() - started) / 1000;
console.log(
  `first sync, ${fmtInt(skus)} SKUs × (factory + ${ACTIVE_DC_CODES.length} centres), limit ${LIMIT} unknown: ${first.calls} stock calls (reads ${first.reads.factory} + ${first.reads.dc}, writes ${first.writes.factory} + ${first.writes.dc}, ${first.refused} refused) in ${first.syncedS.toFixed(1)} s; cheapest plan ${first.cheapest} + at most ${first.refusalBound} refusals`,
);
console.log(
  `40 calls/h, polls every 2 s, ${windowS} s: ${budget.pushes} bulk calls (${budget.landed} of 200 rows landed), ${budget.polls} polls, ${budget.calls} calls in all; pushes keep ${budget.pushFloor} an hour`,
);
if (args.json) {
  emitResult({
    name: 'firstsync',
    wallS,
    peakRssMiB: peakRssMiB(),
    ...(first.daemonRss === undefined ? {} : { daemonPeakRssMiB: first.daemonRss }),
    rows: [
      {
        measure: `first sync (real daemon): ${fmtInt(skus)} SKUs, 3 centres, 10 % differing, bulk limit ${LIMIT} unknown, both files in the inbox at start: stock calls`,
        result: `${first.calls} (reads ${first.reads.factory} + ${first.reads.dc}, bulk ${first.writes.factory} + ${first.writes.dc}, of which ${first.refused} refused as too large)`,
        reference: `cheapest plan ${first.cheapest} (+ ≤ ${first.refusalBound} refusals learning the limit)`,
        ratio: fmtRatio(first.calls - first.refused, first.cheapest),
      },
      {
        measure: `40 calls an hour, shipment polls every 2 s, 200-row backlog (batches of 10), first ${windowS} s (real daemon): bulk calls`,
        result: `${budget.pushes} (${budget.landed} rows landed), ${budget.polls} polls, ${budget.calls} calls in all`,
        reference: `pushes keep ${budget.pushFloor} an hour (40 − API_STOCK_RESERVE 3 − polls' 30)`,
        ratio: fmtRatio(budget.pushes, budget.pushFloor),
      },
    ],
    data: { skus, first, budget },
  });
}
