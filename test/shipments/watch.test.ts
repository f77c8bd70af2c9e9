import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkDeadline, checkUnconfirmed, overdueShipments } from '../../src/shipments/watch.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { enableNotifications, NotifyOutbox } from '../../src/state/notify/notifyOutbox.ts';
import { ShipmentStore } from '../../src/state/shipments/shipmentStore.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';
import { captureLog } from '../inventory/helpers.ts';

let box: Sandbox;
let db: StateDb;
beforeEach(() => {
  box = makeSandbox('watch');
  db = openStateDb(`${box.dataDir}/state.db`);
});
afterEach(async () => {
  db.close();
  await box.cleanup();
});

const H = 3_600_000;
const day = Date.parse('2026-11-23T00:00:00Z');

/** A poll at `at` listing `listed`, whose new orders are handed over in one file. */
function poll(at: number, ...listed: string[]) {
  const store = new ShipmentStore(db);
  const { toExport } = store.recordPoll(
    listed.map((order_number) => ({ order_number })),
    at,
  );
  store.markExported(
    toExport.map((r) => r.order_number),
    `f-${at}`,
    at,
  );
}

describe('shipments awaiting confirmation', () => {
  it('are overdue after the deadline when handed over that day and still unconfirmed', () => {
    poll(day - 2 * H, 'YESTERDAY');
    poll(day + 8 * H, 'YESTERDAY', 'A', 'B', 'C');
    new ShipmentStore(db).markConfirmed('B', day + 9 * H);
    const at = (t: number) => overdueShipments(db, t, 'UTC', '17:00');
    expect(at(day + 16 * H)).toBeNull();
    expect(at(day + 17 * H)).toEqual(['A', 'C']);
    expect(overdueShipments(db, day + 18 * H, 'UTC', undefined)).toBeNull();

    const log = captureLog();
    const clock = { now: () => day + 17 * H, sleep: async () => {} };
    const deps = { db, log: log.log, clock, timezone: 'UTC', deadline: '17:00', confirmWarnMs: H };
    expect(checkDeadline(deps)).toEqual(['A', 'C']);
    expect(log.events('shipments.overdue')).toMatchObject([
      { level: 'warn', count: 2, orders: ['A', 'C'], deadline: '17:00' },
    ]);
    new ShipmentStore(db).markConfirmed('A', day + 17 * H);
    new ShipmentStore(db).markConfirmed('C', day + 17 * H);
    expect(checkDeadline(deps)).toEqual([]);
    expect(log.events('shipments.deadline_met')).toHaveLength(1);
  });

  it('overdue at the deadline: a shipments.overdue notification naming them (notifications on)', () => {
    enableNotifications(db);
    poll(day + 8 * H, 'A', 'B');
    const log = captureLog();
    const clock = { now: () => day + 17 * H, sleep: async () => {} };
    checkDeadline({
      db,
      log: log.log,
      clock,
      timezone: 'UTC',
      deadline: '17:00',
      confirmWarnMs: H,
    });
    const [row] = new NotifyOutbox(db).heads();
    expect(JSON.parse(row!.body)).toMatchObject({
      event: 'shipments.overdue',
      at: '2026-11-23T17:00:00.000Z',
      text: '2 shipment(s) handed to the ERP today are not confirmed by 17:00: `A`, `B`.',
      details: { deadline: '17:00', count: 2, orders: ['A', 'B'], ordersOmitted: 0 },
    });
  });

  it('are named once each when they wait longer than the warning threshold', () => {
    poll(day, 'OLD1', 'OLD2');
    new ShipmentStore(db).markConfirmed('OLD2', day + H);
    poll(day + 3 * H, 'OLD1', 'NEW');
    const log = captureLog();
    let now = day + 4 * H + 1;
    const deps = {
      db,
      log: log.log,
      clock: { now: () => now, sleep: async () => {} },
      timezone: 'UTC',
      confirmWarnMs: 4 * H,
    };
    expect(checkUnconfirmed(deps)).toBe(1);
    expect(checkUnconfirmed(deps)).toBe(0);
    now = day + 7 * H + 1;
    expect(checkUnconfirmed(deps)).toBe(1);
    expect(log.events('shipments.unconfirmed').map((e) => e.orders)).toEqual([['OLD1'], ['NEW']]);
  });
});
