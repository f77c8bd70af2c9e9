import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { carryDueTimes } from '../../src/state/dueTimes.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

let box: Sandbox;
let db: StateDb;
afterEach(async () => {
  db.close();
  await box.cleanup();
});

const DAY = 86_400_000;
const t0 = 1_800_000_000_000;

function failure(sku: string, nextAttemptAt: number) {
  db.prepare(
    `INSERT INTO stock_failures (kind, dc, sku, quantity, error, attempts, first_failed_at,
       last_failed_at, next_attempt_at) VALUES ('factory', '', ?, 1, 'HTTP 500', 1, ?, ?, ?)`,
  ).run(sku, t0, t0, nextAttemptAt);
}

function confirmation(order: string, nextAttemptAt: number) {
  db.prepare(
    `INSERT INTO shipment_confirmations (order_number, action, carrier, tracking_number,
       is_collected, status, next_attempt_at, created_at) VALUES (?, 'shipped', 'DHL', 'T1', 0,
       'pending', ?, ?)`,
  ).run(order, nextAttemptAt, t0);
}

const due = (table: string, column: string) =>
  db.prepare(`SELECT ${column} FROM ${table} ORDER BY 1`).pluck().all() as number[];

describe('due times after a jump of the clock back', () => {
  it('move with the clock: what was due in a minute is due in a minute still', () => {
    box = makeSandbox('due-times');
    db = openStateDb(join(box.dataDir, 'state.db'));
    failure('SKU-DUE', t0 - 1000);
    failure('SKU-SOON', t0 + 60_000);
    failure('SKU-LATER', t0 + 3_600_000);
    confirmation('ORD-1', t0 + 30_000);
    db.prepare(
      `INSERT INTO notify_outbox (uuid, event, body, created_at, next_at) VALUES ('u', 'file.failed', '{}', ?, ?)`,
    ).run(t0, t0 + 10_000);

    // Noticed a second after the clock went back a day.
    const now = t0 - DAY + 1000;
    expect(carryDueTimes(db, -DAY, now)).toBe(5);
    // Due already (a day "ago" now): due at once, not earlier than now.
    expect(due('stock_failures', 'next_attempt_at')).toEqual([
      now,
      t0 - DAY + 60_000,
      t0 - DAY + 3_600_000,
    ]);
    expect(due('shipment_confirmations', 'next_attempt_at')).toEqual([t0 - DAY + 30_000]);
    expect(due('notify_outbox', 'next_at')).toEqual([t0 - DAY + 10_000]);
    // Forward, nothing moves: those retries only come sooner.
    expect(carryDueTimes(db, DAY, now)).toBe(0);
  });
});
