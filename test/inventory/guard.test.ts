import { mkdirSync, readdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { profilesFileSchema } from '../../src/config/profiles.ts';
import { stockRulesFileSchema } from '../../src/config/stockRulesFile.ts';
import { explainKey } from '../../src/daemon/explain.ts';
import { finishHeldDecisions, rejectHeld, releaseHeld } from '../../src/inventory/index.ts';
import { HeldStore } from '../../src/state/inbox/heldStore.ts';
import { setStockRules } from '../../src/state/stock/ruleOffers.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

const guard = { zeroPercent: 50, dropPercent: 80, minKeys: 1 };

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('guard');
  mkdirSync(env.paths.held, { recursive: true });
  // The portal is known to hold 30 factory keys, each at 10.
  env.portalHolds(Array.from({ length: 30 }, (_, i) => ({ sku: `S${i}`, quantity: 10 })));
});
afterEach(async () => {
  await env.cleanup();
});

/** A factory CSV: the first `zeroed` of the 30 known keys at 0, the rest at 10, plus extras. */
const csv = (zeroed: number, extra = 0) =>
  `sku,stock_quantity\n${Array.from({ length: 30 }, (_, i) => `S${i},${i < zeroed ? 0 : 10}`)
    .concat(Array.from({ length: extra }, (_, i) => `NEW${i},0`))
    .join('\n')}\n`;

const held = () => readdirSync(env.paths.held).sort();

describe('guard rails in the file pipeline', () => {
  it('holds a file that zeroes most of the known range: nothing applied, moved to held/ with its report', async () => {
    env.drop('mass-zero.csv', csv(25));
    const out = await env.process('mass-zero.csv', { guard });
    expect(out.status).toBe('held');
    expect(env.desired()).toEqual([]);
    expect(env.dirty()).toEqual([]);
    expect(env.list('inbox')).toEqual([]);
    expect(env.list('processed')).toEqual([]);
    expect(held()).toHaveLength(2);
    const report = env.report(out);
    expect(report).toMatchObject({
      file: 'mass-zero.csv',
      outcome: 'held',
      held: true,
      rowsAccepted: 30,
      guard: {
        held: true,
        heldId: 1,
        tripped: ['zero', 'drop'],
        figures: {
          keysNamed: 30,
          keysUnknown: 0,
          keysInStock: 30,
          keysZeroed: 25,
          sumBefore: 300,
          sumAfter: 50,
        },
        thresholds: { GUARD_ZERO_PERCENT: 50, GUARD_DROP_PERCENT: 80, GUARD_MIN_KEYS: 1 },
      },
    });
    expect(report.reason).toMatch(/^held by the guard rails: it would set 25 of the 30 keys/);
    expect(report.guard?.examples).toHaveLength(20);
    expect(report.guard?.examples[0]).toEqual({ key: 'factory:S0', portal: 10, quantity: 0 });
    expect(env.db.prepare('SELECT status FROM inbox_files').all()).toEqual([{ status: 'held' }]);
    const entry = new HeldStore(env.db).get(1)!;
    expect(entry).toMatchObject({ source: 'file', name: 'mass-zero.csv', status: 'held' });
    expect(entry.storedAs).toBe(held()[0]);
    expect(new HeldStore(env.db).heldIdForKey('factory', '', 'S3')).toBe(1);
    // explain names the held file for a key it names.
    const explained = explainKey(env.db, {
      type: 'stock',
      key: { kind: 'factory', dc: '', sku: 'S3' },
    });
    expect(explained).toMatchObject({ type: 'stock', held: 1 });
    expect(env.capture.events('file.held')).toEqual([
      expect.objectContaining({ file: 'mass-zero.csv', heldId: 1, tripped: ['zero', 'drop'] }),
    ]);
  });

  it('counts keys unknown to the portal as unknown, not as stock that vanishes', async () => {
    // 10 of the 30 known keys zeroed (33%) and 500 new keys at 0: not held.
    env.drop('new-range.csv', csv(10, 500));
    const out = await env.process('new-range.csv', { guard });
    expect(out.status).toBe('processed');
    expect(env.report(out).guard).toMatchObject({
      held: false,
      figures: { keysNamed: 530, keysUnknown: 500, keysInStock: 30, keysZeroed: 10 },
    });
  });

  it('lets a small file through under GUARD_MIN_KEYS, and anything through at 100', async () => {
    env.drop('small.csv', csv(25));
    expect((await env.process('small.csv', { guard: { ...guard, minKeys: 31 } })).status).toBe(
      'processed',
    );
    env.drop('off.csv', csv(30));
    const off = { zeroPercent: 100, dropPercent: 100, minKeys: 1 };
    expect((await env.process('off.csv', { guard: off })).status).toBe('processed');
    expect(held()).toEqual([]);
  });

  it('release puts the file back under another name when the ERP reused its name meanwhile; the pass reads it without the check', async () => {
    env.drop('stock.csv', csv(30));
    expect((await env.process('stock.csv', { guard })).status).toBe('held');
    env.drop('stock.csv', 'sku,stock_quantity\nS0,5\n');
    const released = await releaseHeld({ db: env.db, dataDir: env.dataDir, now: Date.now }, 1);
    expect(released).toMatchObject({
      source: 'file',
      inboxName: 'released-1-stock.csv',
      resumed: false,
    });
    expect(env.list('inbox')).toEqual(['released-1-stock.csv', 'stock.csv']);
    expect(held()).toEqual([]);
    const out = await env.process('released-1-stock.csv', { guard });
    expect(out.status).toBe('processed');
    expect(env.report(out).guard).toMatchObject({ held: false, released: { heldId: 1 } });
    expect(env.desired().every((r) => r.quantity === 0)).toBe(true);
    expect(env.db.prepare('SELECT status FROM inbox_files WHERE id = 1').get()).toEqual({
      status: 'released',
    });
  });

  it('a release exempts the one entry it put back, not its bytes: the same bytes after a restore are held again', async () => {
    env.drop('zero.csv', csv(30));
    expect((await env.process('zero.csv', { guard })).status).toBe('held');
    await releaseHeld({ db: env.db, dataDir: env.dataDir, now: Date.now }, 1);
    const put = await env.process('zero.csv', { guard });
    expect(put.status).toBe('processed');
    expect(env.report(put).guard).toMatchObject({ held: false, released: { heldId: 1 } });
    // Other files restore the stock (the portal holds 10 of each key again).
    env.drop('restore.csv', csv(0));
    expect((await env.process('restore.csv', { guard })).status).toBe('processed');
    // The same bytes again, later: judged against the portal as it is now, held again.
    env.drop('zero-again.csv', csv(30));
    const again = await env.process('zero-again.csv', { guard });
    expect(again.status).toBe('held');
    expect(env.report(again).guard).toMatchObject({
      held: true,
      heldId: 2,
      tripped: ['zero', 'drop'],
    });
    expect(env.report(again).guard?.released).toBeUndefined();
    expect(env.desired().every((r) => r.quantity === 10)).toBe(true);
    // Released again, that entry is exempt in turn (once).
    await releaseHeld({ db: env.db, dataDir: env.dataDir, now: Date.now }, 2);
    const put2 = await env.process('zero-again.csv', { guard });
    expect(env.report(put2).guard).toMatchObject({ held: false, released: { heldId: 2 } });
  });

  it('a crash after the decision and before the move: the next start finishes it (release to inbox/, reject to failed/)', async () => {
    env.drop('a.csv', csv(30));
    env.drop('b.csv', csv(29));
    expect((await env.process('a.csv', { guard })).status).toBe('held');
    expect((await env.process('b.csv', { guard })).status).toBe('held');
    // The decisions as the commands record them, without their moves (cut short by a crash).
    const store = new HeldStore(env.db);
    store.decide(1, 'released', Date.now());
    store.decide(2, 'rejected', Date.now());
    expect(held()).toHaveLength(4);
    const deps = { db: env.db, dataDir: env.dataDir, now: Date.now, log: env.capture.log };
    expect(await finishHeldDecisions(deps)).toBe(2);
    expect(held()).toEqual([]);
    expect(env.list('inbox')).toEqual(['a.csv']);
    expect(env.list('failed')).toEqual([
      expect.stringMatching(/-b\.csv$/),
      expect.stringMatching(/-b\.csv\.report\.json$/),
    ]);
    expect(await finishHeldDecisions(deps)).toBe(0);
    // The same command again is refused once nothing is left to finish.
    await expect(rejectHeld(deps, 2)).rejects.toThrow(/no longer held: rejected/);
  });

  it('a truncated full export is held: the keys it would zero by omission count as keys it names', async () => {
    const profiles = profilesFileSchema.parse({
      profiles: [{ match: 'full-*.csv', absent: 'zero' }],
    }).profiles;
    // The portal was read: the 30 known keys are all it holds.
    env.db
      .prepare("INSERT INTO kv (key, value, updated_at) VALUES ('remote.read_at.factory', '1', 1)")
      .run();
    // A "full export" cut off after 5 rows: the other 25 would be zeroed.
    env.drop(
      'full-1.csv',
      `sku,stock_quantity\n${Array.from({ length: 5 }, (_, i) => `S${i},10`).join('\n')}\n`,
    );
    const out = await env.process('full-1.csv', { guard, profiles: () => profiles });
    expect(out.status).toBe('held');
    expect(env.desired()).toEqual([]);
    expect(env.report(out)).toMatchObject({
      outcome: 'held',
      absentZeroed: 25,
      guard: { figures: { keysNamed: 30, keysInStock: 30, keysZeroed: 25 } },
    });
  });

  it('compares what would be offered: a buffer that takes the range to 0 is held; excluded keys are left out', async () => {
    // S0..S9 excluded (never pushed), S10..S29 offered 5 fewer than the ERP counts.
    setStockRules(
      env.db,
      stockRulesFileSchema.parse({
        rules: [
          { sku: 'S?', exclude: true },
          { sku: 'S*', buffer: 5 },
        ],
      }).rules,
    );
    env.drop(
      'buffered.csv',
      `sku,stock_quantity\n${Array.from({ length: 30 }, (_, i) => `S${i},5`).join('\n')}\n`,
    );
    const out = await env.process('buffered.csv', { guard });
    expect(out.status).toBe('held');
    expect(env.report(out).guard).toMatchObject({
      figures: { keysNamed: 20, keysInStock: 20, keysZeroed: 20, sumBefore: 200, sumAfter: 0 },
    });
    expect(env.report(out).guard?.examples[0]).toMatchObject({ quantity: 0 });
  });
});
