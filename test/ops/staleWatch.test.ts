import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkStale, startStaleWatch } from '../../src/daemon/staleWatch.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { PendingStock } from '../../src/state/stock/pendingStock.ts';
import { makeSandbox, type Sandbox, waitUntil } from '../helpers/sandbox.ts';
import { captureLog } from './helpers.ts';

const MIN = 60_000;
const STALE = 60 * MIN;
const T0 = Date.UTC(2025, 0, 6, 8, 0, 0);

let sandbox: Sandbox;
let db: StateDb;

beforeEach(() => {
  sandbox = makeSandbox('stale');
  db = openStateDb(join(sandbox.dataDir, 'state.db'));
});
afterEach(async () => {
  db.close();
  await sandbox.cleanup();
});

const touch = (sku: string, at: number, kind: 'factory' | 'dc' = 'factory') =>
  new PendingStock(db).mark([{ kind, dc: kind === 'dc' ? 'DC1' : '', sku }], at);
const pushSucceeded = (at: number) => new KeyValueStore(db).set('last.push_success', at, at);
const settleAll = () => db.prepare('DELETE FROM pending_stock').run();

describe('checkStale', () => {
  it('is not stale with nothing pending, however old the last push', () => {
    expect(checkStale(db, STALE, T0)).toEqual({
      stale: false,
      pendingSince: null,
      lastPushSuccess: null,
    });
    pushSucceeded(T0 - 10 * STALE);
    expect(checkStale(db, STALE, T0).stale).toBe(false);
  });

  it('is not stale while the oldest pending difference is younger than the limit', () => {
    touch('A', T0);
    expect(checkStale(db, STALE, T0 + STALE - 1)).toEqual({
      stale: false,
      pendingSince: T0,
      lastPushSuccess: null,
    });
    expect(checkStale(db, STALE, T0 + STALE).stale).toBe(true);
  });

  it('is not stale while a push succeeded within the limit', () => {
    touch('A', T0);
    pushSucceeded(T0 + 30 * MIN);
    expect(checkStale(db, STALE, T0 + 80 * MIN)).toEqual({
      stale: false,
      pendingSince: T0,
      lastPushSuccess: T0 + 30 * MIN,
    });
    expect(checkStale(db, STALE, T0 + 90 * MIN).stale).toBe(true);
  });
});

describe('startStaleWatch', () => {
  it('warns sync.stale at most once per interval while stale, and sync.recovered once', () => {
    const captured = captureLog();
    let now = T0;
    const watch = startStaleWatch({
      db,
      log: captured.log,
      staleAfterMs: STALE,
      everyMs: 5 * MIN,
      now: () => now,
    });
    try {
      touch('A', T0);
      touch('B', T0 + MIN);
      touch('S1', T0 + MIN, 'dc');
      expect(watch.check().stale).toBe(false);

      now = T0 + STALE + MIN;
      expect(watch.check().stale).toBe(true);
      now += MIN; // within the interval: no second line
      expect(watch.check().stale).toBe(true);
      expect(captured.events('sync.stale')).toHaveLength(1);
      const warn = captured.events('sync.stale')[0]!;
      expect(warn).toMatchObject({
        level: 'warn',
        pending: { factory: 2, dc: 1 },
        failures: 0,
        pendingSince: T0,
        lastPushSuccess: null,
        waitingMs: STALE + MIN,
        staleAfterMs: STALE,
      });

      now += 5 * MIN; // a full interval later: warned again
      watch.check();
      expect(captured.events('sync.stale')).toHaveLength(2);
      expect(captured.events('sync.recovered')).toHaveLength(0);

      pushSucceeded(now); // a push went through: not stale any more, differences or not
      now += MIN;
      expect(watch.check().stale).toBe(false);
      watch.check();
      expect(captured.events('sync.recovered')).toHaveLength(1);
      expect(captured.events('sync.recovered')[0]).toMatchObject({
        level: 'info',
        staleForMs: 7 * MIN,
      });

      // Stale again later (the push did not settle everything), then settled: one more cycle.
      now += STALE;
      watch.check();
      expect(captured.events('sync.stale')).toHaveLength(3);
      settleAll();
      watch.check();
      watch.check();
      expect(captured.events('sync.recovered')).toHaveLength(2);
      expect(captured.events('sync.stale')).toHaveLength(3);
    } finally {
      watch.stop();
    }
  });

  it('checks on its own timer and survives a failing check', async () => {
    const captured = captureLog();
    touch('A', T0);
    const other = openStateDb(join(sandbox.dataDir, 'state.db'));
    let now = T0 + STALE;
    const watch = startStaleWatch({
      db: other,
      log: captured.log,
      staleAfterMs: STALE,
      everyMs: 20,
      now: () => (now += 20), // each check sees one interval pass
    });
    try {
      await waitUntil(() => captured.events('sync.stale').length >= 2, {
        message: 'two sync.stale lines',
      });
      other.close(); // every check now throws: logged, the timer goes on
      await waitUntil(() => captured.events('stale_watch.failed').length >= 2, {
        message: 'two stale_watch.failed lines',
      });
    } finally {
      watch.stop();
      if (other.open) other.close();
    }
  });
});
