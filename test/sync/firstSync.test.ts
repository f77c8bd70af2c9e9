import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVE_DC_CODES } from '../../src/simulator/seed.ts';
import {
  dcCsv,
  factoryCsv,
  type Harness,
  type LogLine,
  seededSku,
  startHarness,
} from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

/**
 * The first sync of a fresh daemon (issue #29) on the simulator: 5,000 SKUs, a factory file and a
 * file for the 3 centres, about 10 % of the rows differing from the portal, both in the inbox at
 * start, the portal's bulk limit 250 and unknown to the daemon (BULK_BATCH_SIZE 1000).
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const SKUS = 5000;
const LIMIT = 250;
const BATCH = 1000;
const ROUTES = {
  readFactory: 'GET /factory-stocks',
  readDc: 'GET /distribution-centre-stocks',
  bulkFactory: 'POST /factory-stocks/bulk-update',
  bulkDc: 'POST /distribution-centre-stocks/bulk-update',
} as const;
const STOCK_ROUTES = new Set<string>(Object.values(ROUTES));

function dump(h: Harness, name: string) {
  return () => {
    const lines = (h.daemon?.output() ?? '').trimEnd().split('\n').slice(-120);
    console.error(`[${name}] the daemon's last ${lines.length} log lines:\n${lines.join('\n')}`);
  };
}

/** The files: each 10th factory row and each 10th DC row (other keys per centre) differ. */
function files(h: Harness) {
  const store = h.sim.store;
  const factory = Array.from({ length: SKUS }, (_, i) => {
    const q = store.factoryStock(seededSku(i))!.stock_quantity;
    return [seededSku(i), i % 10 === 0 ? q + 1 : q] as const;
  });
  const dc = ACTIVE_DC_CODES.flatMap((code, c) =>
    Array.from({ length: SKUS }, (_, i) => {
      const q = store.dcStock(code, seededSku(i))!.stock_quantity;
      return [code, seededSku(i), (i + c) % 10 === 3 ? q + 1 : q] as const;
    }),
  );
  return { factory, dc };
}

/** The cheapest plan knowing nothing, per kind: read every page and push the differences, or push every row. */
function cheapest(
  rows: { factory: number; dc: number },
  differing: { factory: number; dc: number },
) {
  const factory = Math.min(
    Math.ceil(rows.factory / 2500) + Math.ceil(differing.factory / LIMIT),
    Math.ceil(rows.factory / LIMIT),
  );
  // A DC batch holds a SKU once: one centre's rows at most.
  const perCentre = rows.dc / ACTIVE_DC_CODES.length;
  const dc = Math.min(
    Math.ceil(rows.dc / 100) + Math.ceil(differing.dc / LIMIT),
    ACTIVE_DC_CODES.length * Math.ceil(perCentre / LIMIT),
  );
  return factory + dc;
}

const index = (lines: readonly LogLine[], match: (l: LogLine) => boolean) => lines.findIndex(match);

describe('the first sync', () => {
  it('costs at most 1.05× the cheapest plan plus the refusals that learn the bulk limit', async () => {
    h = await startHarness('first-sync', { products: SKUS, maxBulkItems: LIMIT, shipments: 0 });
    const { factory, dc } = files(h);
    mkdirSync(join(h.box.dataDir, 'inbox'), { recursive: true });
    h.drop('factory.csv', factoryCsv(factory));
    h.drop('dc.csv', dcCsv(dc));
    const d = await h.start({ BULK_BATCH_SIZE: String(BATCH) });
    await waitUntil(
      () =>
        factory.every(([s, q]) => h!.sim.store.factoryStock(s)?.stock_quantity === q) &&
        dc.every(([c, s, q]) => h!.sim.store.dcStock(c, s)?.stock_quantity === q),
      { timeoutMs: 60_000, message: 'the portal to hold both files', onTimeout: dump(h, 'first') },
    );
    await d.waitFor((l) => l.event === 'sync.pushed');
    // The lanes that might still spend calls on what the daemon now knows.
    await h.runNow('reconcile');
    await h.waitForIdle(['push', 'ingest', 'reconcile'], 60_000);

    const requests = h.sim.stats().requests.filter((r) => STOCK_ROUTES.has(r.route));
    const refused = requests.filter((r) => r.status >= 300);
    const floor = cheapest(
      { factory: factory.length, dc: dc.length },
      { factory: SKUS / 10, dc: dc.length / 10 },
    );
    expect(floor).toBe(64);
    // Refusals over the daemon's life: at most ⌈log₂(BULK_BATCH_SIZE / limit)⌉ + 1.
    expect(refused.length).toBeLessThanOrEqual(Math.ceil(Math.log2(BATCH / LIMIT)) + 1);
    expect(requests.length).toBeLessThanOrEqual(1.05 * floor + refused.length);

    // Decide before pushing (point 2): both files were applied before either kind was decided,
    // and no DC row went before the DC decision.
    const lines = d.lines;
    const processed = lines.filter((l) => l.event === 'file.processed');
    expect(processed).toHaveLength(2);
    const lastApplied = lines.lastIndexOf(processed[1]!);
    const decided = (kind: string) =>
      index(lines, (l) => l.event === 'sync.first_start' && l.kind === kind);
    expect(decided('factory')).toBeGreaterThan(lastApplied);
    expect(decided('dc')).toBeGreaterThan(lastApplied);
    const firstDcPush = index(lines, (l) => l.event === 'stock.pushed' && l.kind === 'dc');
    expect(firstDcPush).toBeGreaterThan(decided('dc'));
    expect(lines.find((l) => l.event === 'sync.first_start' && l.kind === 'dc')).toMatchObject({
      choice: 'push',
    });

    // A push of every row is the kind's starting point (point 1): no DC page was read, and the
    // next idle pass is due one RECONCILE_MIN_INTERVAL_MS later.
    expect(requests.filter((r) => r.route === ROUTES.readDc)).toEqual([]);
    const s = await h.statusJson();
    expect(s.pendingDifferences).toMatchObject({ factory: 0, dc: 0 });
  });
});
