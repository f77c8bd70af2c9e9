import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { readStatus } from '../../src/daemon/status.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

let box: Sandbox;
let db: StateDb;
afterEach(async () => {
  db.close();
  await box.cleanup();
});

describe('status', () => {
  it('counts "confirmed today" from local midnight in SYNC_TIMEZONE', () => {
    box = makeSandbox('status-tz');
    db = openStateDb(join(box.dataDir, 'state.db'));
    const insert = db.prepare(
      `INSERT INTO shipment_confirmations
         (order_number, action, carrier, tracking_number, is_collected, status, next_attempt_at, created_at, confirmed_at)
       VALUES (?, 'shipped', 'DPD', ?, 0, 'confirmed', 0, 0, ?)`,
    );
    // 23 Nov 2026, 10:30 UTC: 23:30 in Auckland (UTC+13), 05:30 in New York (UTC−5).
    const now = Date.parse('2026-11-23T10:30:00Z');
    insert.run('O1', 'T1', Date.parse('2026-11-22T10:00:00Z')); // Auckland 22 Nov 23:00
    insert.run('O2', 'T2', Date.parse('2026-11-22T12:00:00Z')); // Auckland 23 Nov 01:00
    insert.run('O3', 'T3', Date.parse('2026-11-23T02:00:00Z')); // New York 22 Nov 21:00
    insert.run('O4', 'T4', Date.parse('2026-11-23T06:00:00Z')); // New York 23 Nov 01:00
    const today = (timezone: string) =>
      readStatus(db, loadConfig({ env: { SYNC_TIMEZONE: timezone } }), now).failures.confirmations
        .confirmedToday;
    expect(today('UTC')).toBe(2); // O3, O4
    expect(today('Pacific/Auckland')).toBe(3); // O2, O3, O4
    expect(today('America/New_York')).toBe(1); // O4
  });
});
