/**
 * The economy benchmark's drift figures (issue #15), in virtual time (bench/lib/lanes.ts): the
 * real budget of 3,600 calls an hour on both sides (sliding hour), the default reserves, an
 * otherwise idle daemon (no shipments).
 *
 * - drift: the daemon has re-read the portal for WARM_UP_MS; then 1 % of the factory keys and 1 %
 *   of the DC keys are changed on the portal behind its back. How long until every one of them is
 *   back at the desired value, and what that cost; how many pages each kind's pass takes.
 * - backlog: after the same warm-up, every key of the catalogue changes at once with a bulk batch
 *   of 100 (4,000 calls: more than an hour of the push lane). Calls to pushes and to reads over
 *   the hour that follows, and when the backlog is done — against the same backlog on a daemon
 *   that does not re-read (RECONCILE_MIN_INTERVAL_MS 0, nothing read in the hour before).
 */
import { join } from 'node:path';
import { createPortalClient, stockPortal } from '../../src/api/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { StockKind } from '../../src/domain/stock.ts';
import { failurePolicy } from '../../src/failures/failurePolicy.ts';
import type { Logger } from '../../src/log/logger.ts';
import { type Simulator, startSimulator } from '../../src/simulator/index.ts';
import { openStateDb } from '../../src/state/db.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { kvKey } from '../../src/state/kvKeys.ts';
import type { DesiredInput } from '../../src/state/stock/desiredStock.ts';
import { PendingStock } from '../../src/state/stock/pendingStock.ts';
import { reconcileAll } from '../../src/sync/reconcile.ts';
import { seedDesiredStock } from '../../test/helpers/desiredStock.ts';
import { onCleanup } from './cleanup.ts';
import { type LaneRig, runLanes, SkipClock } from './lanes.ts';

const HOUR = 3_600_000;
/** Re-reading before the drift (or the backlog) comes: the lane's steady state. */
export const WARM_UP_MS = 2 * HOUR;
const INTERVAL_MS = 900_000;
const RETRY = { baseMs: 60_000, maxMs: 3_600_000, notFoundMs: 6 * 3_600_000 };
const ROUTES = {
  read: { factory: 'GET /factory-stocks', dc: 'GET /distribution-centre-stocks' },
  write: {
    factory: 'POST /factory-stocks/bulk-update',
    dc: 'POST /distribution-centre-stocks/bulk-update',
  },
} as const;
const KINDS = ['factory', 'dc'] as const;
/** 1 % of keys, spread over the catalogue (as the rest of the economy benchmark). */
const changed = (i: number, salt: number) => (i * 7919 + salt) % 100 === 0;

interface DriftRig extends LaneRig {
  readonly sim: Simulator;
  /** Where the staged apply keeps its scratch files (beside the state.db). */
  readonly dataDir: string;
  close(): Promise<void>;
}

async function rig(
  dir: string,
  name: string,
  skus: number,
  log: Logger,
  opts: { batch: number; intervalMs: number },
): Promise<DriftRig> {
  const clock = new SkipClock();
  const sim = await startSimulator({
    products: skus,
    shipments: 0,
    maxBulkItems: opts.batch,
    requestsPerHour: 3600,
    rateWindow: 'sliding',
    now: clock.now,
  });
  const db = openStateDb(join(dir, `state-drift-${name}.db`));
  const config = loadConfig({
    env: {
      SUPPLIER_API_URL: sim.baseUrl,
      SUPPLIER_EMAIL: 'supplier@example.com',
      SUPPLIER_PASSWORD: 'demo-password',
      BULK_BATCH_SIZE: String(opts.batch),
    },
  });
  const client = createPortalClient({
    baseUrl: sim.baseUrl,
    email: config.email!,
    password: config.password!,
    db,
    log,
    clock,
    settings: config,
  });
  const close = onCleanup(async () => {
    client.close();
    db.close();
    await sim.close();
  });
  return {
    sim,
    db,
    dataDir: dir,
    clock,
    log,
    retry: RETRY,
    intervalMs: opts.intervalMs,
    reader: stockPortal(client).reader,
    writer: stockPortal(client).writer,
    close,
  };
}

/** Desired stock = the portal's, every key; the kinds count as established (a past first start). */
function desiredAsPortal(r: DriftRig): Record<StockKind, DesiredInput[]> {
  const store = r.sim.store;
  const factory: DesiredInput[] = [];
  const dc: DesiredInput[] = [];
  for (let p = 0; p < store.productCount; p++) {
    factory.push({ dc: '', sku: store.skuAt(p), quantity: store.factoryQuantityAt(p) });
  }
  for (let k = 0; k < store.dcRecordCount; k++) {
    const rec = store.dcRecordAt(k);
    dc.push({ dc: rec.distribution_centre_code, sku: rec.sku, quantity: rec.stock_quantity });
  }
  return { factory, dc };
}

/** Calls per route answered in [from, to) of the simulator's (virtual) clock. */
function callsBetween(sim: Simulator, from: number, to: number) {
  const seen = sim.stats().requests.filter((q) => q.at >= from && q.at < to);
  const n = (route: string) => seen.filter((q) => q.route === route).length;
  return {
    read: { factory: n(ROUTES.read.factory), dc: n(ROUTES.read.dc) },
    write: { factory: n(ROUTES.write.factory), dc: n(ROUTES.write.dc) },
    rateLimited: seen.filter((q) => q.status === 429).length,
  };
}

/**
 * A state.db that knows the portal whole and wants it as it is: one full read (waiting out the
 * budget in virtual time, as the daemon would), then the desired stock, then an hour so that
 * those calls leave the window: the daemon's history, not this measurement.
 */
async function steadyState(r: DriftRig, desired: Record<StockKind, DesiredInput[]>) {
  for (;;) {
    try {
      const summaries = await reconcileAll(r);
      if (summaries.every((s) => s.complete)) break;
    } catch (err) {
      const action = failurePolicy(err);
      if (action.kind !== 'wait') throw err;
      r.clock.advanceTo(action.until);
    }
  }
  const now = r.clock.now();
  for (const kind of KINDS) {
    await seedDesiredStock(r.db, r.dataDir, kind, desired[kind], `bench-${kind}`, now);
  }
  r.clock.advanceTo(now + HOUR);
  r.sim.resetStats();
}

export interface DriftFigures {
  readonly drifted: Record<StockKind, number>;
  /** Minutes from the drift until each kind's keys were all back (median and last). */
  readonly repairMin: Record<StockKind, { median: number; max: number }>;
  readonly callsUntilRepaired: ReturnType<typeof callsBetween>;
  /** Pages of each kind's last complete pass (a full pass's cost in calls). */
  readonly passPages: Record<StockKind, number>;
  readonly hours: number;
}

export async function driftScenario(dir: string, skus: number, log: Logger): Promise<DriftFigures> {
  const r = await rig(dir, 'repair', skus, log, { batch: 1000, intervalMs: INTERVAL_MS });
  const desired = desiredAsPortal(r);
  await steadyState(r, desired);
  const start = r.clock.now();
  await runLanes(r, start + WARM_UP_MS);

  // Behind the daemon's back: 1 % of the keys of each kind move by one.
  const t0 = r.clock.now();
  const open = new Map<string, { kind: StockKind; check: () => boolean }>();
  const bump = (q: number) => (q > 0 ? q - 1 : q + 1);
  desired.factory.forEach((row, i) => {
    if (!changed(i, 11)) return;
    r.sim.store.setFactoryStock(row.sku, bump(row.quantity));
    open.set(`f:${row.sku}`, {
      kind: 'factory',
      check: () => r.sim.store.factoryStock(row.sku)?.stock_quantity === row.quantity,
    });
  });
  desired.dc.forEach((row, i) => {
    if (!changed(i, 53)) return;
    r.sim.store.setDcStock(row.dc, row.sku, bump(row.quantity));
    open.set(`d:${row.dc}:${row.sku}`, {
      kind: 'dc',
      check: () => r.sim.store.dcStock(row.dc, row.sku)?.stock_quantity === row.quantity,
    });
  });
  const drifted = { factory: 0, dc: 0 };
  for (const v of open.values()) drifted[v.kind]++;
  const repairedAt: Record<StockKind, number[]> = { factory: [], dc: [] };
  await runLanes(r, t0 + 6 * HOUR, {
    done: () => open.size === 0,
    afterPush: () => {
      for (const [key, v] of open) {
        if (!v.check()) continue;
        repairedAt[v.kind].push(r.clock.now() - t0);
        open.delete(key);
      }
    },
  });
  const end = r.clock.now();
  if (open.size > 0) throw new Error(`drift: ${open.size} keys still differ after 6 hours`);
  const kv = new KeyValueStore(r.db);
  const figures: DriftFigures = {
    drifted,
    repairMin: {
      factory: quantiles(repairedAt.factory),
      dc: quantiles(repairedAt.dc),
    },
    callsUntilRepaired: callsBetween(r.sim, t0, end + 1),
    passPages: {
      factory: kv.get(kvKey.reconcilePass('factory'))?.pages ?? 0,
      dc: kv.get(kvKey.reconcilePass('dc'))?.pages ?? 0,
    },
    hours: (end - t0) / HOUR,
  };
  await r.close();
  return figures;
}

function quantiles(ms: number[]): { median: number; max: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { median: at(0.5) / 60_000, max: (sorted.at(-1) ?? 0) / 60_000 };
}

export interface BacklogFigures {
  readonly rereading: boolean;
  readonly calls: number;
  /** Calls in the hour after the backlog came. */
  readonly firstHour: ReturnType<typeof callsBetween>;
  /** Minutes until no key was pending. */
  readonly doneMin: number;
}

export async function backlogScenario(
  dir: string,
  skus: number,
  log: Logger,
  rereading: boolean,
): Promise<BacklogFigures> {
  const batch = 100;
  const r = await rig(dir, rereading ? 'backlog-on' : 'backlog-off', skus, log, {
    batch,
    intervalMs: rereading ? INTERVAL_MS : 0,
  });
  const desired = desiredAsPortal(r);
  await steadyState(r, desired);
  await runLanes(r, r.clock.now() + WARM_UP_MS);
  const t0 = r.clock.now();
  const bumped = (rows: DesiredInput[]) =>
    rows.map((row) => ({ ...row, quantity: row.quantity + 1 }));
  for (const kind of KINDS) {
    await seedDesiredStock(r.db, r.dataDir, kind, bumped(desired[kind]), `backlog-${kind}`, t0);
  }
  const pending = new PendingStock(r.db);
  const calls = Math.ceil(desired.factory.length / batch) + Math.ceil(desired.dc.length / batch);
  // The files were just handled: the push is asked for at once.
  await runLanes(r, t0 + 6 * HOUR, {
    askPush: true,
    done: () => {
      const c = pending.counts();
      return c.factory + c.dc === 0;
    },
  });
  const end = r.clock.now();
  const c = pending.counts();
  if (c.factory + c.dc > 0) throw new Error('backlog: keys still pending after 6 hours');
  const figures = {
    rereading,
    calls,
    firstHour: callsBetween(r.sim, t0, t0 + HOUR),
    doneMin: (end - t0) / 60_000,
  };
  await r.close();
  return figures;
}
