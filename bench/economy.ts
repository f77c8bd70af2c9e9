/**
 * Economy benchmark (not a test): how many portal calls the sync engine spends, against the
 * theoretical minimum, on a catalogue of N SKUs × 3 distribution centres with 1 % of the keys
 * changed.
 *
 * - steady state: the portal is read once (reconcileAll: reads against ceil(N/2500) factory pages
 *   + ceil(3N/100) DC pages), desired stock = the portal's values with 1 % of factory keys and 1 % of
 *   DC keys changed is applied, then pushPending: write calls per kind against
 *   ceil(changes / largest batch);
 * - first start: nothing known of the portal, every desired row present: establishRemote +
 *   pushPending, reads + writes against the cheaper way per kind, min(read all + push the
 *   changes, push every row).
 *
 * The engine runs in this process (pushPending / reconcileAll / establishRemote with stockWriter /
 * stockReader over a real PortalClient), against the real simulator over HTTP on 127.0.0.1, with a
 * real SQLite state.db in a temp dir. Each scenario runs once per portal bulk limit (default: 1000,
 * equal to BULK_BATCH_SIZE, and 400, below it, which makes the client learn the limit).
 *
 * - drift (issue #15, bench/lib/drift.ts): the daemon's lanes in virtual time with the real budget
 *   of 3,600 calls an hour: how long until 1 % drift made behind an otherwise idle daemon's back is
 *   repaired, what a full pass costs, and whether a backlog of pushes is slowed by re-reading.
 *
 *   node bench/economy.ts [--skus 100000] [--portal-limits 1000,400] [--only calls,drift,backlog]
 *                         [--quick | --scale S] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPortalClient, type PortalClient, stockPortal } from '../src/api/index.ts';
import { loadConfig } from '../src/config/index.ts';
import { systemClock } from '../src/domain/clock.ts';
import type { StockKind } from '../src/domain/stock.ts';
import { createLogger } from '../src/log/logger.ts';
import { type Simulator, startSimulator } from '../src/simulator/index.ts';
import { openStateDb, type StateDb } from '../src/state/db.ts';
import type { DesiredInput } from '../src/state/stock/desiredStock.ts';
import { READ_PAGE_SIZE } from '../src/sync/decide/firstStart.ts';
import { establishRemote } from '../src/sync/establish.ts';
import { pushPending } from '../src/sync/push.ts';
import { reconcileAll } from '../src/sync/reconcile.ts';
import { seedDesiredStock } from '../test/helpers/desiredStock.ts';
import { benchArgs, sized } from './lib/args.ts';
import { onCleanup } from './lib/cleanup.ts';
import { backlogScenario, driftScenario } from './lib/drift.ts';
import { type BenchRow, emitResult, fmtInt, fmtRatio, peakRssMiB } from './lib/result.ts';

const args = benchArgs({
  skus: { type: 'string' },
  'portal-limits': { type: 'string' },
  only: { type: 'string' },
});
const only = new Set(String(args.values.only ?? 'calls,drift,backlog').split(','));
const skus = sized(args.values.skus, 100_000, args.scale, 100);
const portalLimits = String(args.values['portal-limits'] ?? '1000,400')
  .split(',')
  .map((s) => Number(s.trim()));
if (portalLimits.some((n) => !Number.isInteger(n) || n < 1)) {
  throw new Error('--portal-limits must be whole numbers ≥ 1, comma-separated');
}
/** BULK_BATCH_SIZE: the default configuration. */
const BATCH = 1000;
const ROUTES = {
  read: { factory: 'GET /factory-stocks', dc: 'GET /distribution-centre-stocks' },
  write: {
    factory: 'POST /factory-stocks/bulk-update',
    dc: 'POST /distribution-centre-stocks/bulk-update',
  },
} as const;
const KINDS = ['factory', 'dc'] as const;
const LABEL: Record<StockKind, string> = { factory: 'factory', dc: 'DC' };
/** 1 % of keys, spread over the catalogue: key i changes when (i · 7919 + salt) mod 100 = 0. */
const changed = (i: number, salt: number) => (i * 7919 + salt) % 100 === 0;

const started = performance.now();
const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-bench-economy-'));
const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
const log = createLogger({ level: 'warn', pretty: false, destination: process.stderr });

type PerKind = Record<StockKind, number>;

interface Desired {
  rows: Record<StockKind, DesiredInput[]>;
  changes: PerKind;
}

/**
 * The simulator's current values, with 1 % of factory keys and 1 % of DC keys changed; round 1
 * changes other keys than round 0.
 */
function desiredFrom(sim: Simulator, round = 0): Desired {
  const store = sim.store;
  const factory: DesiredInput[] = [];
  const dc: DesiredInput[] = [];
  const changes: PerKind = { factory: 0, dc: 0 };
  const bump = (q: number) => (q > 0 ? q - 1 : q + 1);
  for (let p = 0; p < store.productCount; p++) {
    const q = store.factoryQuantityAt(p);
    const change = changed(p, round * 50);
    if (change) changes.factory++;
    factory.push({ dc: '', sku: store.skuAt(p), quantity: change ? bump(q) : q });
  }
  for (let k = 0; k < store.dcRecordCount; k++) {
    const r = store.dcRecordAt(k);
    const change = changed(k, 37 + round * 50);
    if (change) changes.dc++;
    dc.push({
      dc: r.distribution_centre_code,
      sku: r.sku,
      quantity: change ? bump(r.stock_quantity) : r.stock_quantity,
    });
  }
  return { rows: { factory, dc }, changes };
}

/** Rows of desired stock the portal does not hold (0 after a complete push). */
function portalDifferences(sim: Simulator, desired: Desired): number {
  let n = 0;
  for (const r of desired.rows.factory) {
    if (sim.store.factoryStock(r.sku)?.stock_quantity !== r.quantity) n++;
  }
  for (const r of desired.rows.dc) {
    if (sim.store.dcStock(r.dc, r.sku)?.stock_quantity !== r.quantity) n++;
  }
  return n;
}

interface Rig {
  sim: Simulator;
  db: StateDb;
  client: PortalClient;
  close(): Promise<void>;
}

let rigCount = 0;
async function rig(portalLimit: number): Promise<Rig> {
  const sim = await startSimulator({
    products: skus,
    shipments: 0,
    maxBulkItems: portalLimit,
    // The budget is not what this benchmark measures: neither side limits it here.
    requestsPerHour: 1e9,
  });
  const db = openStateDb(join(dir, `state-${++rigCount}.db`));
  const config = loadConfig({
    env: {
      SUPPLIER_API_URL: sim.baseUrl,
      SUPPLIER_EMAIL: 'supplier@example.com',
      SUPPLIER_PASSWORD: 'demo-password',
      BULK_BATCH_SIZE: String(BATCH),
      API_REQUESTS_PER_HOUR: String(1e9),
    },
  });
  const client = createPortalClient({
    baseUrl: sim.baseUrl,
    email: config.email!,
    password: config.password!,
    db,
    log,
    settings: config,
  });
  const close = onCleanup(async () => {
    client.close();
    db.close();
    await sim.close();
  });
  return { sim, db, client, close };
}

/** Calls per route since the last snapshot, and bulk calls refused (non-2xx). */
function counter(sim: Simulator) {
  let base = { ...sim.stats().byRoute };
  let logged = sim.stats().requests.length;
  return {
    take() {
      const s = sim.stats();
      const delta = (route: string) => (s.byRoute[route] ?? 0) - (base[route] ?? 0);
      const fresh = s.requests.slice(logged);
      const out = {
        read: { factory: delta(ROUTES.read.factory), dc: delta(ROUTES.read.dc) },
        write: { factory: delta(ROUTES.write.factory), dc: delta(ROUTES.write.dc) },
        refused: {
          factory: fresh.filter((r) => r.route === ROUTES.write.factory && r.status >= 300).length,
          dc: fresh.filter((r) => r.route === ROUTES.write.dc && r.status >= 300).length,
        },
        other: Object.keys(s.byRoute)
          .filter(
            (r) =>
              r !== 'POST /login' &&
              !Object.values(ROUTES).some((g) => (Object.values(g) as string[]).includes(r)),
          )
          .reduce((n, r) => n + delta(r), 0),
      };
      base = { ...s.byRoute };
      logged = s.requests.length;
      return out;
    },
  };
}

const deps = (r: Rig) => ({
  db: r.db,
  writer: stockPortal(r.client).writer,
  reader: stockPortal(r.client).reader,
  log,
  clock: systemClock,
  retry: { baseMs: 60_000, maxMs: 3_600_000, notFoundMs: 6 * 3_600_000 },
});

const plural = (n: number) => `${fmtInt(n)} call${n === 1 ? '' : 's'}`;
const seconds = (t: number) => (performance.now() - t) / 1000;

/** Desired stock applied as the daemon applies a stock file's rows (the staged apply). */
async function applyAll(db: StateDb, desired: Desired): Promise<void> {
  const now = Date.now();
  for (const kind of KINDS) {
    await seedDesiredStock(db, dir, kind, desired.rows[kind], `bench-${kind}`, now);
  }
}

async function steadyState(portalLimit: number) {
  const r = await rig(portalLimit);
  const count = counter(r.sim);
  const desired = desiredFrom(r.sim);
  let t = performance.now();
  await reconcileAll(deps(r));
  const readS = seconds(t);
  const reads = count.take();
  t = performance.now();
  await applyAll(r.db, desired);
  const applyS = seconds(t);
  t = performance.now();
  const totals = await pushPending(deps(r));
  const pushS = seconds(t);
  const writes = count.take();
  const left = portalDifferences(r.sim, desired);
  const learnt = { factory: r.client.maxBatchSize('factory'), dc: r.client.maxBatchSize('dc') };
  // Another 1 % (other keys), pushed with what the first push learnt of the portal's limit.
  const again = desiredFrom(r.sim, 1);
  await applyAll(r.db, again);
  await pushPending(deps(r));
  const writesAgain = count.take();
  const leftAgain = portalDifferences(r.sim, again);
  await r.close();
  if (left + leftAgain !== 0) {
    throw new Error(`steady state: the portal still differs on ${left} + ${leftAgain} rows`);
  }
  const batch = Math.min(BATCH, portalLimit);
  const minReads = {
    factory: Math.ceil(desired.rows.factory.length / READ_PAGE_SIZE.factory),
    dc: Math.ceil(desired.rows.dc.length / READ_PAGE_SIZE.dc),
  };
  const minWrites = {
    factory: Math.ceil(desired.changes.factory / batch),
    dc: Math.ceil(desired.changes.dc / batch),
  };
  return {
    portalLimit,
    batch,
    rows: { factory: desired.rows.factory.length, dc: desired.rows.dc.length },
    changes: desired.changes,
    reads: reads.read,
    minReads,
    writes: writes.write,
    refusedWrites: writes.refused,
    minWrites,
    changesAgain: again.changes,
    writesAgain: writesAgain.write,
    refusedAgain: writesAgain.refused,
    minWritesAgain: {
      factory: Math.ceil(again.changes.factory / batch),
      dc: Math.ceil(again.changes.dc / batch),
    },
    otherCalls: reads.other + writes.other + writesAgain.other,
    sent: totals.sent,
    learntBatch: learnt,
    seconds: { read: readS, apply: applyS, push: pushS },
  };
}

async function firstStart(portalLimit: number) {
  const r = await rig(portalLimit);
  const count = counter(r.sim);
  const desired = desiredFrom(r.sim);
  await applyAll(r.db, desired);
  const t = performance.now();
  const choices = await establishRemote({ ...deps(r), writer: stockPortal(r.client).writer });
  await pushPending(deps(r));
  const s = seconds(t);
  const calls = count.take();
  const left = portalDifferences(r.sim, desired);
  await r.close();
  if (left !== 0) throw new Error(`first start: the portal still differs on ${left} rows`);
  const batch = Math.min(BATCH, portalLimit);
  const cheapest = (kind: StockKind) => {
    const n = desired.rows[kind].length;
    const read = Math.ceil(n / READ_PAGE_SIZE[kind]) + Math.ceil(desired.changes[kind] / batch);
    const push = Math.ceil(n / batch);
    return { calls: Math.min(read, push), way: read < push ? 'read' : 'push' };
  };
  const spent = (kind: StockKind) => calls.read[kind] + calls.write[kind];
  return {
    portalLimit,
    batch,
    choices: Object.fromEntries(choices.map((c) => [c.kind, c.choice])),
    reads: calls.read,
    writes: calls.write,
    refusedWrites: calls.refused,
    spent: { factory: spent('factory'), dc: spent('dc') },
    cheapest: { factory: cheapest('factory'), dc: cheapest('dc') },
    otherCalls: calls.other,
    seconds: s,
  };
}

const steady = [];
const first = [];
for (const limit of only.has('calls') ? portalLimits : []) {
  console.error(`economy: ${fmtInt(skus)} SKUs × 3 DCs, portal bulk limit ${limit}: steady state…`);
  steady.push(await steadyState(limit));
  console.error(`economy: portal bulk limit ${limit}: first start…`);
  first.push(await firstStart(limit));
}
let drift: Awaited<ReturnType<typeof driftScenario>> | undefined;
const backlog: Awaited<ReturnType<typeof backlogScenario>>[] = [];
if (only.has('drift')) {
  console.error(`economy: drift, ${fmtInt(skus)} SKUs × 3 DCs, 3,600 calls/h, virtual time…`);
  drift = await driftScenario(dir, skus, log);
}
if (only.has('backlog')) {
  for (const rereading of [true, false]) {
    console.error(`economy: backlog of pushes, re-reading ${rereading ? 'on' : 'off'}…`);
    backlog.push(await backlogScenario(dir, skus, log, rereading));
  }
}
await removeDir();

const rows: BenchRow[] = [];
const sum = (k: PerKind) => k.factory + k.dc;
for (const [i, s] of steady.entries()) {
  const f = first[i]!;
  const setting = `limit ${s.portalLimit}, batch ${BATCH}`;
  if (i === 0) {
    rows.push({
      measure: `reads to learn the portal (${fmtInt(s.rows.factory)} factory + ${fmtInt(s.rows.dc)} DC rows)`,
      result: `${fmtInt(sum(s.reads))} calls (${fmtInt(s.reads.factory)} + ${fmtInt(s.reads.dc)}), ${s.seconds.read.toFixed(1)} s`,
      reference: `min ${fmtInt(sum(s.minReads))}`,
      ratio: fmtRatio(sum(s.reads), sum(s.minReads)),
    });
  }
  for (const kind of KINDS) {
    rows.push({
      measure: `push 1 %: ${LABEL[kind]} writes, ${fmtInt(s.changes[kind])} changes (${setting})`,
      result: `${plural(s.writes[kind])}${s.refusedWrites[kind] ? ` (${s.refusedWrites[kind]} refused as too large)` : ''}`,
      reference: `min ${fmtInt(s.minWrites[kind])}`,
      ratio: fmtRatio(s.writes[kind], s.minWrites[kind]),
    });
  }
  if (s.portalLimit < BATCH) {
    // With the default limit this repeats the rows above; below it, it shows the learnt size.
    for (const kind of KINDS) {
      rows.push({
        measure: `next push 1 %: ${LABEL[kind]} writes, ${fmtInt(s.changesAgain[kind])} changes (${setting}, learnt ${s.learntBatch[kind]})`,
        result: `${plural(s.writesAgain[kind])}${s.refusedAgain[kind] ? ` (${s.refusedAgain[kind]} refused as too large)` : ''}`,
        reference: `min ${fmtInt(s.minWritesAgain[kind])}`,
        ratio: fmtRatio(s.writesAgain[kind], s.minWritesAgain[kind]),
      });
    }
  }
  rows.push({
    measure: `first start, empty known remote: reads + writes (${setting})`,
    result: `${fmtInt(sum(f.spent))} calls (factory ${f.choices.factory ?? '–'} ${fmtInt(f.spent.factory)}, DC ${f.choices.dc ?? '–'} ${fmtInt(f.spent.dc)}), ${f.seconds.toFixed(1)} s`,
    reference: `min ${fmtInt(f.cheapest.factory.calls + f.cheapest.dc.calls)} (factory ${f.cheapest.factory.way}, DC ${f.cheapest.dc.way})`,
    ratio: fmtRatio(sum(f.spent), f.cheapest.factory.calls + f.cheapest.dc.calls),
  });
}

if (drift) {
  const d = drift;
  const c = d.callsUntilRepaired;
  rows.push({
    measure: `full pass, idle re-reading: factory / DC pages (${fmtInt(skus)} SKUs × 3 DCs)`,
    result: `${fmtInt(d.passPages.factory)} + ${fmtInt(d.passPages.dc)} calls`,
    reference: `min ${fmtInt(Math.ceil(skus / READ_PAGE_SIZE.factory))} + ${fmtInt(Math.ceil((3 * skus) / READ_PAGE_SIZE.dc))}`,
    ratio: fmtRatio(
      d.passPages.factory + d.passPages.dc,
      Math.ceil(skus / READ_PAGE_SIZE.factory) + Math.ceil((3 * skus) / READ_PAGE_SIZE.dc),
    ),
  });
  rows.push({
    measure: `1 % drift behind an idle daemon's back (${fmtInt(d.drifted.factory)} factory + ${fmtInt(d.drifted.dc)} DC keys), 3,600 calls/h: time until repaired`,
    result: `factory median ${d.repairMin.factory.median.toFixed(0)} min, all ${d.repairMin.factory.max.toFixed(0)} min; DC median ${d.repairMin.dc.median.toFixed(0)} min, all ${d.repairMin.dc.max.toFixed(0)} min`,
    reference: `one DC pass at the lane's 2,700 calls/h ≈ ${((d.passPages.dc / 2700) * 60).toFixed(0)} min`,
    ratio: '–',
  });
  rows.push({
    measure: 'calls until the drift was repaired (reads; pushes)',
    result: `${fmtInt(c.read.factory + c.read.dc)} reads (${fmtInt(c.read.factory)} + ${fmtInt(c.read.dc)}); ${fmtInt(c.write.factory + c.write.dc)} pushes (${c.write.factory} + ${c.write.dc}), ${c.rateLimited} × 429`,
    reference: `min pushes ${Math.ceil(d.drifted.factory / BATCH) + Math.ceil(d.drifted.dc / BATCH)}`,
    ratio: fmtRatio(
      c.write.factory + c.write.dc,
      Math.ceil(d.drifted.factory / BATCH) + Math.ceil(d.drifted.dc / BATCH),
    ),
  });
}
for (const b of backlog) {
  const h = b.firstHour;
  const off = backlog.find((x) => !x.rereading);
  rows.push({
    measure: `backlog of ${fmtInt(b.calls)} bulk calls (batch 100), re-reading ${b.rereading ? 'on for 2 h before' : 'off'}: first hour's calls, pushes / reads`,
    result: `${fmtInt(h.write.factory + h.write.dc)} / ${fmtInt(h.read.factory + h.read.dc)}, done after ${b.doneMin.toFixed(0)} min, ${h.rateLimited} × 429`,
    reference:
      b.rereading && off
        ? `off: ${fmtInt(off.firstHour.write.factory + off.firstHour.write.dc)} / 0, ${off.doneMin.toFixed(0)} min`
        : 'push lane 3,300/h',
    ratio: b.rereading && off ? fmtRatio(b.doneMin, off.doneMin) : '–',
  });
}

const wallS = (performance.now() - started) / 1000;
console.log(`economy: ${fmtInt(skus)} SKUs × 3 DCs, 1 % of keys changed, BULK_BATCH_SIZE ${BATCH}`);
console.log('');
console.log('| measure | result | minimum | ratio |');
console.log('| --- | ---: | ---: | ---: |');
for (const row of rows)
  console.log(`| ${row.measure} | ${row.result} | ${row.reference} | ${row.ratio} |`);
console.log('');
for (const s of steady) {
  console.log(
    `limit ${s.portalLimit}: read ${s.seconds.read.toFixed(1)} s, apply ${s.seconds.apply.toFixed(1)} s, push ${s.seconds.push.toFixed(1)} s; learnt batch after the first push: factory ${s.learntBatch.factory}, DC ${s.learntBatch.dc}; other calls ${s.otherCalls}`,
  );
}
console.log(`wall ${wallS.toFixed(1)} s, peak RSS ${peakRssMiB().toFixed(0)} MiB`);
if (args.json) {
  emitResult({
    name: 'economy',
    wallS,
    peakRssMiB: peakRssMiB(),
    rows,
    data: { skus, batch: BATCH, steady, first, drift, backlog },
  });
}
