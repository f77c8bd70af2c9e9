import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPortalClient, type PortalClient } from '../../src/api/index.ts';
import { ensureDataDirs } from '../../src/config/dataPaths.ts';
import { loadConfig } from '../../src/config/index.ts';
import { shipmentsPort } from '../../src/daemon/portAdapters.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { createLogger, type Logger } from '../../src/log/logger.ts';
import { sendConfirmations } from '../../src/shipments/confirm.ts';
import { pollReadyToShip } from '../../src/shipments/poll.ts';
import { type Simulator, startSimulator } from '../../src/simulator/index.ts';
import { ConfirmationSends } from '../../src/state/confirmationSends.ts';
import { storeConfirmations } from '../../src/state/confirmations.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { ShipmentStore } from '../../src/state/shipments.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

const retry = { baseMs: 1, maxMs: 5, notFoundMs: 5 };
let box: Sandbox;
let sim: Simulator;
let db: StateDb;
let client: PortalClient;
let log: Logger;
let outbox: string;

function open() {
  db = openStateDb(join(box.dataDir, 'state.db'));
  const config = loadConfig({ env: { API_BACKOFF_BASE_MS: '2', API_BACKOFF_MAX_MS: '10' } });
  client = createPortalClient({
    baseUrl: sim.baseUrl,
    email: 'supplier@example.com',
    password: 'demo-password',
    db,
    log,
    settings: config,
  });
}

beforeEach(async () => {
  box = makeSandbox('ship');
  sim = await startSimulator({ products: 50 });
  outbox = (await ensureDataDirs(box.dataDir)).outbox;
  const stream = new PassThrough();
  stream.resume();
  log = createLogger({ destination: stream, pretty: false });
  open();
});

afterEach(async () => {
  client.close();
  db.close();
  await sim.close();
  await box.cleanup();
});

const poll = () =>
  pollReadyToShip({
    db,
    port: shipmentsPort(client),
    log,
    clock: systemClock,
    outboxDir: outbox,
    format: 'json',
  });
const outboxFiles = () =>
  readdirSync(outbox)
    .filter((f) => !f.startsWith('.'))
    .sort();
const exportedOrders = () =>
  outboxFiles().flatMap((f) =>
    (
      JSON.parse(readFileSync(join(outbox, f), 'utf8')) as {
        shipments: Array<{ order_number: string }>;
      }
    ).shipments.map((s) => s.order_number),
  );

describe('ready to ship → outbox', () => {
  it('hands exactly the ready-to-ship orders to the ERP, once, across a restart', async () => {
    const ready = sim.store
      .allShipments()
      .filter((s) => s.status === 'pending' && s.ship_by === new Date().toISOString().slice(0, 10))
      .map((s) => s.order_number)
      .sort();
    expect(ready.length).toBeGreaterThan(0);
    expect(sim.store.allShipments().length).toBeGreaterThan(ready.length); // later, shipped, collected exist

    const first = await poll();
    expect(first.exported?.count).toBe(ready.length);
    expect(outboxFiles()).toHaveLength(1);
    expect(outboxFiles()[0]).toMatch(/^ready-to-ship-\d{8}T\d{9}Z-\d{6}\.json$/);
    expect(exportedOrders().sort()).toEqual(ready);

    await poll();
    expect(outboxFiles()).toHaveLength(1);

    // Restart: a new connection to the same state.db; nothing is handed over twice.
    client.close();
    db.close();
    open();
    await poll();
    expect(outboxFiles()).toHaveLength(1);

    // A new order due today goes out alone in a second file that sorts after the first.
    sim.store.addShipment({ order_number: 'ORD-NEW-1' });
    await poll();
    const files = outboxFiles();
    expect(files).toHaveLength(2);
    expect(exportedOrders().filter((o) => o === 'ORD-NEW-1')).toHaveLength(1);
    expect(files[1]! > files[0]!).toBe(true);
  });

  it('writes CSV when asked, with a header and one row per shipment', async () => {
    const outcome = await pollReadyToShip({
      db,
      port: shipmentsPort(client),
      log,
      clock: systemClock,
      outboxDir: outbox,
      format: 'csv',
    });
    const text = readFileSync(join(outbox, outcome.exported!.file), 'utf8');
    const lines = text.trim().split('\r\n');
    expect(lines[0]!.startsWith('order_number,')).toBe(true);
    expect(lines).toHaveLength(outcome.exported!.count + 1);
  });

  it('notes an order that left the list and never exports it again', async () => {
    await poll();
    const [order] = exportedOrders();
    await client.shipments.shipped(
      order!,
      { carrier: 'DPD', tracking_number: 'T-ELSEWHERE' },
      { lane: 'shipments' },
    );
    const outcome = await poll();
    expect(outcome.leftList).toEqual([order]);
    expect(outboxFiles()).toHaveLength(1);
  });
});

describe('confirmations → portal', () => {
  it('sends shipped, shipped+collected and collected; fails an unknown order; sends a duplicate once; keeps a conflict', async () => {
    await poll();
    const listed = exportedOrders();
    const [a, b, c] = listed;
    const results = storeConfirmations(
      db,
      [
        {
          orderNumber: a!,
          action: 'shipped',
          carrier: 'DPD',
          trackingNumber: 'T-A',
          isCollected: false,
          line: 2,
        },
        {
          orderNumber: b!,
          action: 'shipped',
          carrier: 'UPS',
          trackingNumber: 'T-B',
          isCollected: true,
          line: 3,
        },
        {
          orderNumber: c!,
          action: 'collected',
          carrier: 'DHL',
          trackingNumber: 'T-C',
          isCollected: false,
          line: 4,
        },
        {
          orderNumber: 'NO-SUCH-ORDER',
          action: 'shipped',
          carrier: 'DPD',
          trackingNumber: 'T-X',
          isCollected: false,
          line: 5,
        },
        {
          orderNumber: a!,
          action: 'shipped',
          carrier: 'DPD',
          trackingNumber: 'T-A',
          isCollected: false,
          line: 6,
        },
        {
          orderNumber: a!,
          action: 'shipped',
          carrier: 'DPD',
          trackingNumber: 'T-OTHER',
          isCollected: false,
          line: 7,
        },
      ],
      { fileId: null, now: Date.now() },
    );
    expect(results.map((r) => r.outcome)).toEqual([
      'new',
      'new',
      'new',
      'new',
      'duplicate',
      'conflict',
    ]);
    sim.resetStats();

    const totals = await sendConfirmations({
      db,
      port: shipmentsPort(client),
      log,
      clock: systemClock,
      retry,
    });
    expect(totals).toMatchObject({ confirmed: 3, failed: 1 });
    expect(sim.store.shipment(a!)).toMatchObject({
      status: 'shipped',
      carrier: 'DPD',
      tracking_number: 'T-A',
      is_collected: false,
    });
    expect(sim.store.shipment(b!)).toMatchObject({
      carrier: 'UPS',
      tracking_number: 'T-B',
      is_collected: true,
    });
    expect(sim.store.shipment(c!)).toMatchObject({
      status: 'collected',
      carrier: 'DHL',
      tracking_number: 'T-C',
    });
    const shippedCalls = sim.stats().requests.filter((r) => r.route.startsWith('POST /shipments/'));
    expect(shippedCalls.filter((r) => r.path.includes(encodeURIComponent(a!)))).toHaveLength(1);

    const failures = new ConfirmationSends(db).failures();
    expect(failures.map((f) => [f.orderNumber, f.status])).toEqual([
      ['NO-SUCH-ORDER', 'failed'],
      [a!, 'conflict'],
    ]);
    expect(failures[0]!.error).toBeTruthy();
    // Confirmed orders leave the daemon's ready-to-ship view at once.
    expect(new ShipmentStore(db).counts().open).toBe(listed.length - 3);
  });

  it('lands every confirmation exactly once through 500s and connection resets', async () => {
    await poll();
    const orders = exportedOrders().slice(0, 6);
    storeConfirmations(
      db,
      orders.map((o, i) => ({
        orderNumber: o,
        action: 'shipped' as const,
        carrier: 'DPD',
        trackingNumber: `T-${i}`,
        isCollected: false,
        line: i + 2,
      })),
      { fileId: null, now: Date.now() },
    );
    sim.resetStats();
    sim.faults.set({ next500: 3, nextReset: 2 });
    const sends = new ConfirmationSends(db);
    for (let round = 0; round < 50 && sends.counts(0).pending > 0; round++) {
      await sendConfirmations({ db, port: shipmentsPort(client), log, clock: systemClock, retry });
      await new Promise((r) => setTimeout(r, 6));
    }
    expect(sends.counts(0)).toMatchObject({ pending: 0, failed: 0, confirmedToday: 6 });
    for (const [i, o] of orders.entries()) {
      expect(sim.store.shipment(o)).toMatchObject({ status: 'shipped', tracking_number: `T-${i}` });
    }
    const landed = sim
      .stats()
      .requests.filter(
        (r) =>
          r.route === 'POST /shipments/:order_number/shipped' && r.status >= 200 && r.status < 300,
      );
    expect(landed).toHaveLength(6);
  });
});
