import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPortalClient, type PortalClient, shipmentsPortal } from '../../src/api/index.ts';
import { ensureDataDirs } from '../../src/config/dataPaths.ts';
import { loadConfig } from '../../src/config/index.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { failurePolicy } from '../../src/failures/failurePolicy.ts';
import { createLogger, type Logger } from '../../src/log/logger.ts';
import { sendConfirmations } from '../../src/shipments/confirm.ts';
import { pollReadyToShip } from '../../src/shipments/poll.ts';
import { type Simulator, startSimulator } from '../../src/simulator/index.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { ConfirmationSends } from '../../src/state/shipments/confirmationSends.ts';
import { storeConfirmations } from '../../src/state/shipments/confirmations.ts';
import { ShipmentStore } from '../../src/state/shipments/shipmentStore.ts';
import { rejection } from '../api/helpers.ts';
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
    port: shipmentsPortal(client),
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

  it('two processes polling one state.db at once hand each order over once', async () => {
    const other = openStateDb(join(box.dataDir, 'state.db'));
    const otherClient = createPortalClient({
      baseUrl: sim.baseUrl,
      email: 'supplier@example.com',
      password: 'demo-password',
      db: other,
      log,
      settings: loadConfig({ env: {} }),
    });
    try {
      // Both hold the token, and read the list before either records it (slowed answers).
      await client.reference.sites();
      await otherClient.reference.sites();
      sim.faults.set({ slowMs: 100 });
      const pollWith = (d: StateDb, c: PortalClient) =>
        pollReadyToShip({
          db: d,
          port: shipmentsPortal(c),
          log,
          clock: systemClock,
          outboxDir: outbox,
          format: 'json',
        });
      const outcomes = await Promise.all([pollWith(db, client), pollWith(other, otherClient)]);
      sim.faults.clear();
      expect(outcomes.filter((o) => o.exported !== null)).toHaveLength(1);
      const orders = exportedOrders();
      expect(orders.length).toBeGreaterThan(0);
      expect(new Set(orders).size).toBe(orders.length);
      expect(outboxFiles()).toHaveLength(1);
    } finally {
      otherClient.close();
      other.close();
    }
  });

  it('writes CSV when asked, with a header and one row per shipment', async () => {
    const outcome = await pollReadyToShip({
      db,
      port: shipmentsPortal(client),
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

/** One confirmation row as a file gives it. */
function row(
  orderNumber: string,
  action: 'shipped' | 'collected',
  carrier: string,
  trackingNumber: string,
  line: number,
  isCollected = false,
) {
  return { orderNumber, action, carrier, trackingNumber, isCollected, line };
}

/** Stores rows as a file with no ledger entry would, now. */
const store = (rows: Parameters<typeof storeConfirmations>[1], fileId: number | null = null) =>
  storeConfirmations(db, rows, { fileId, now: Date.now() });

const send = () =>
  sendConfirmations({ db, port: shipmentsPortal(client), log, clock: systemClock, retry });

/** Sends until nothing is due now (a retry's back-off here is a few ms). */
async function sendUntilSettled(rounds = 50) {
  const sends = new ConfirmationSends(db);
  for (let i = 0; i < rounds && sends.counts(0).pending > 0; i++) {
    await send();
    await new Promise((r) => setTimeout(r, 6));
  }
}

const postsTo = (action: 'shipped' | 'collected', order: string) =>
  sim
    .stats()
    .requests.filter(
      (r) => r.route === `POST /shipments/:order_number/${action}` && r.path.includes(order),
    );

describe('confirmations → portal', () => {
  it('sends shipped, shipped+collected and collected; fails an unknown order; sends a duplicate once; a new parcel for a confirmed order is a conflict', async () => {
    await poll();
    const listed = exportedOrders();
    const [a, b, c] = listed;
    const results = store([
      row(a!, 'shipped', 'DPD', 'T-A', 2),
      row(b!, 'shipped', 'UPS', 'T-B', 3, true),
      row(c!, 'collected', 'DHL', 'T-C', 4),
      row('NO-SUCH-ORDER', 'shipped', 'DPD', 'T-X', 5),
      row(a!, 'shipped', 'DPD', 'T-A', 6),
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['new', 'new', 'new', 'new', 'duplicate']);
    sim.resetStats();

    const totals = await send();
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

    // Confirmed orders leave the daemon's ready-to-ship view at once.
    expect(new ShipmentStore(db).counts().open).toBe(listed.length - 3);

    // Another tracking number for an order the portal has confirmed: a conflict, never sent.
    const [late] = store([row(a!, 'shipped', 'DPD', 'T-OTHER', 7)]);
    expect(late).toMatchObject({
      outcome: 'conflict',
      existing: { carrier: 'DPD', trackingNumber: 'T-A' },
    });
    await send();
    expect(postsTo('shipped', a!)).toHaveLength(1);
    const failures = new ConfirmationSends(db).failures();
    expect(failures.map((f) => [f.orderNumber, f.status])).toEqual([
      ['NO-SUCH-ORDER', 'failed'],
      [a!, 'conflict'],
    ]);
    expect(failures[0]!.error).toBeTruthy();
  });

  it('a corrected tracking number replaces a pending or failed confirmation, and is sent', async () => {
    await poll();
    const [a, b, c] = exportedOrders();
    const sends = new ConfirmationSends(db);
    // b: shipped T-9, refused by the portal for good.
    store([row(b!, 'shipped', 'DHL', 'T-9', 2)]);
    sim.faults.set({
      routeFaults: [{ route: 'POST /shipments/:order_number/shipped', status: 422, times: 1 }],
    });
    expect(await send()).toMatchObject({ failed: 1 });
    expect(sends.failures().map((f) => f.orderNumber)).toEqual([b]);
    // a: shipped T-1, and c: shipped + collected T-5, all still pending (not sent yet).
    store([
      row(a!, 'shipped', 'DPD', 'T-1', 2),
      row(c!, 'shipped', 'UPS', 'T-5', 3),
      row(c!, 'collected', 'UPS', 'T-5', 4),
    ]);

    // The ERP corrects the three tracking numbers (a later line or file).
    const results = store(
      [
        row(a!, 'shipped', 'DPD', 'T-2', 5),
        row(b!, 'shipped', 'DHL', 'T-10', 6),
        row(c!, 'collected', 'UPS', 'T-6', 7),
      ],
      42,
    );
    expect(results.map((r) => r.outcome)).toEqual(['new', 'new', 'new']);
    expect(results[0]!.replaced).toEqual([
      expect.objectContaining({ action: 'shipped', trackingNumber: 'T-1', status: 'pending' }),
    ]);
    expect(results[1]!.replaced).toEqual([
      expect.objectContaining({ action: 'shipped', trackingNumber: 'T-9', status: 'failed' }),
    ]);
    // c's shipped goes again with the corrected parcel, before its collected.
    expect(results[2]!.replaced?.map((r) => [r.action, r.trackingNumber])).toEqual([
      ['shipped', 'T-5'],
      ['collected', 'T-5'],
    ]);
    expect(results[2]!.alsoStored).toHaveLength(1);
    // The refused one is no longer a failure: its correction is in line.
    expect(sends.failures()).toEqual([]);

    sim.resetStats();
    await sendUntilSettled();
    expect(sim.store.shipment(a!)).toMatchObject({ status: 'shipped', tracking_number: 'T-2' });
    expect(sim.store.shipment(b!)).toMatchObject({ status: 'shipped', tracking_number: 'T-10' });
    expect(sim.store.shipment(c!)).toMatchObject({ status: 'collected', tracking_number: 'T-6' });
    expect(sim.stats().requests.filter((r) => r.method === 'POST')).toHaveLength(4);
    expect(sends.ofFile(42).map((r) => [r.orderNumber, r.action, r.status])).toEqual([
      [a, 'shipped', 'confirmed'],
      [b, 'shipped', 'confirmed'],
      [c, 'shipped', 'confirmed'],
      [c, 'collected', 'confirmed'],
    ]);
    const replaced = db
      .prepare(
        `SELECT tracking_number FROM shipment_confirmations WHERE status = 'replaced' ORDER BY id`,
      )
      .pluck()
      .all();
    expect(replaced).toEqual(['T-9', 'T-1', 'T-5', 'T-5']);
  });

  it('a collected waits for its order’s shipped; a refusal because not shipped yet is retried, not final', async () => {
    await poll();
    const [a, b] = exportedOrders();
    sim.faults.set({
      collectedNeedsShipped: true,
      // a's shipped meets a 500 first: it is retrying while its collected is due.
      routeFaults: [{ route: 'POST /shipments/:order_number/shipped', status: 500, times: 1 }],
    });
    store([
      row(a!, 'shipped', 'DPD', 'T-A', 2),
      row(a!, 'collected', 'DPD', 'T-A', 3),
      // b's collected comes without its shipped: the portal refuses it (not shipped yet).
      row(b!, 'collected', 'UPS', 'T-B', 4),
    ]);
    sim.resetStats();
    // A first pass with a long back-off, so that the retries wait: a's collected was not sent
    // while its shipped is retrying; b's collected was refused and waits to go again.
    const slow = { baseMs: 60_000, maxMs: 60_000, notFoundMs: 60_000 };
    const first = await sendConfirmations({
      db,
      port: shipmentsPortal(client),
      log,
      clock: systemClock,
      retry: slow,
    });
    expect(first).toMatchObject({ confirmed: 0, failed: 0, retrying: 2 });
    expect(postsTo('collected', a!)).toHaveLength(0);
    expect(postsTo('collected', b!).map((r) => r.status)).toEqual([409]);
    expect(new ConfirmationSends(db).failures()).toEqual([]);
    db.prepare(
      `UPDATE shipment_confirmations SET next_attempt_at = 0 WHERE status = 'pending'`,
    ).run();

    await sendUntilSettled(10);
    expect(sim.store.shipment(a!)).toMatchObject({ status: 'collected' });
    // Every call for a: the shipped (500, then 200), then the collected once.
    const forA = sim
      .stats()
      .requests.filter((r) => r.path.includes(a!) && r.method === 'POST')
      .map((r) => `${r.route.split('/').pop()} ${r.status}`);
    expect(forA).toEqual(['shipped 500', 'shipped 200', 'collected 200']);

    // b's shipped arrives later (a later file): its collected, waiting after the refusal, goes
    // right after it.
    expect(sim.store.shipment(b!)?.status).toBe('pending');
    store([row(b!, 'shipped', 'UPS', 'T-B', 2)]);
    await sendUntilSettled(10);
    expect(sim.store.shipment(b!)).toMatchObject({ status: 'collected', tracking_number: 'T-B' });
    expect(new ConfirmationSends(db).counts(0)).toMatchObject({ pending: 0, failed: 0 });
  });

  it('a refused collected is never recorded as done, though the order shows its tracking number', async () => {
    await poll();
    const [a] = exportedOrders();
    store([row(a!, 'shipped', 'DPD', 'T-A', 2)]);
    await send();
    expect(sim.store.shipment(a!)).toMatchObject({ status: 'shipped', tracking_number: 'T-A' });
    // The collected's first attempt gets no answer; its resend is refused. The order shows the
    // same carrier and tracking number (from the shipped), but not collected.
    store([row(a!, 'collected', 'DPD', 'T-A', 3)]);
    sim.faults.set({
      nextReset: 1,
      routeFaults: [
        {
          route: 'POST /shipments/:order_number/collected',
          status: 422,
          message: 'The carrier has not scanned this parcel.',
        },
      ],
    });
    const totals = await send();
    expect(totals).toMatchObject({ confirmed: 0, failed: 1 });
    const [failure] = new ConfirmationSends(db).failures();
    expect(failure).toMatchObject({ orderNumber: a, action: 'collected', status: 'failed' });
    expect(failure!.error).toMatch(/not scanned/);
    expect(sim.store.shipment(a!)?.is_collected).toBe(false);
  });

  it('a 403 on confirmations stops them and keeps them pending, not failed', async () => {
    await poll();
    const [a] = exportedOrders();
    store([row(a!, 'shipped', 'DPD', 'T-A', 2)]);
    sim.faults.set({
      routeFaults: [{ route: 'POST /shipments/:order_number/shipped', status: 403 }],
    });
    const err = await rejection(send());
    expect(failurePolicy(err)).toMatchObject({ kind: 'fix-config' });
    const sends = new ConfirmationSends(db);
    expect(sends.failures()).toEqual([]);
    expect(sends.counts(0)).toMatchObject({ pending: 1, failed: 0 });

    // Permissions granted on the portal: the same confirmation goes through.
    sim.faults.clear();
    await sendUntilSettled(5);
    expect(sim.store.shipment(a!)).toMatchObject({ status: 'shipped', tracking_number: 'T-A' });
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
      await sendConfirmations({
        db,
        port: shipmentsPortal(client),
        log,
        clock: systemClock,
        retry,
      });
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
