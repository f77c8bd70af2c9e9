import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { PendingStock } from '../../src/state/stock/pendingStock.ts';
import { RemoteStock } from '../../src/state/stock/remoteStock.ts';
import { rederiveOffers, setStockRules } from '../../src/state/stock/ruleOffers.ts';
import { StockFailures } from '../../src/state/stock/stockFailures.ts';
import { seedDesiredStock } from '../helpers/desiredStock.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

let box: Sandbox;
let db: StateDb;
afterEach(async () => {
  db?.close();
  await box.cleanup();
});

function open(label: string) {
  box = makeSandbox(label);
  db = openStateDb(join(box.dataDir, 'state.db'));
  return db;
}

/** Factory keys of these SKUs and quantities applied from a file at t=10, none of them pending. */
async function seedFactory(rows: ReadonlyArray<readonly [string, number]>): Promise<void> {
  const stock = rows.map(([sku, quantity]) => ({ dc: '', sku, quantity }));
  await seedDesiredStock(db, box.dataDir, 'factory', stock, 'file:1', 10);
  db.exec('DELETE FROM pending_stock');
}

/** A failure of factory key `sku` at `quantity`, recorded at t=`at`. */
const failAt = (sku: string, quantity: number, at: number) =>
  new StockFailures(db).record({ kind: 'factory', dc: '', sku, quantity }, 'boom', false, at, {
    baseMs: 1000,
    maxMs: 10_000,
    notFoundMs: 10_000,
  });

const rowsOf = (kind: string) =>
  db
    .prepare(
      'SELECT dc, sku, erp_quantity AS erp, quantity, rule, excluded FROM desired_stock WHERE kind = ? ORDER BY dc, sku',
    )
    .all(kind);
const pendingKeys = () =>
  db
    .prepare("SELECT kind || ':' || dc || ':' || sku AS k FROM pending_stock ORDER BY 1")
    .pluck()
    .all();

const RULES = [
  { sku: 'DISC-*', exclude: true },
  { kind: 'dc' as const, dc: 'DC-LON', buffer: 2 },
  { sku: 'SKU-1*', buffer: 5, percent: 50, max: 100 },
];

describe('desired stock under stock rules (real SQLite)', () => {
  it('stores ERP and offered quantities and the rule; excluded keys are never pending', async () => {
    open('rules-apply');
    setStockRules(db, RULES);
    rederiveOffers(db, 1);
    const applied = await seedDesiredStock(
      db,
      box.dataDir,
      'dc',
      [
        { dc: 'DC-LON', sku: 'A', quantity: 10 },
        { dc: 'DC-BER', sku: 'A', quantity: 10 },
        { dc: 'DC-BER', sku: 'SKU-100', quantity: 300 },
        { dc: 'DC-BER', sku: 'DISC-1', quantity: 7 },
      ],
      'file:1',
      10,
    );
    expect(rowsOf('dc')).toEqual([
      { dc: 'DC-BER', sku: 'A', erp: 10, quantity: 10, rule: null, excluded: 0 },
      {
        dc: 'DC-BER',
        sku: 'DISC-1',
        erp: 7,
        quantity: 7,
        rule: 'rules[0]: sku DISC-* → exclude',
        excluded: 1,
      },
      {
        dc: 'DC-BER',
        sku: 'SKU-100',
        erp: 300,
        quantity: 100,
        rule: 'rules[2]: sku SKU-1* → buffer 5, percent 50, max 100',
        excluded: 0,
      },
      {
        dc: 'DC-LON',
        sku: 'A',
        erp: 10,
        quantity: 8,
        rule: 'rules[1]: kind dc, dc DC-LON → buffer 2',
        excluded: 0,
      },
    ]);
    expect(applied.differing).toBe(3);
    expect(pendingKeys()).toEqual(['dc:DC-BER:A', 'dc:DC-BER:SKU-100', 'dc:DC-LON:A']);
    expect(applied.offers).toMatchObject({
      erpUnits: 327,
      offeredUnits: 118,
      adjusted: 2,
      excluded: 1,
      byRule: [
        { rule: 'rules[0]: sku DISC-* → exclude', keys: 1 },
        { rule: 'rules[1]: kind dc, dc DC-LON → buffer 2', keys: 1 },
        { rule: 'rules[2]: sku SKU-1* → buffer 5, percent 50, max 100', keys: 1 },
      ],
    });
    expect(applied.offers.examples).toContainEqual({
      key: 'dc:DC-BER:DISC-1',
      erp: 7,
      offered: null,
      rule: 'rules[0]: sku DISC-* → exclude',
    });
  });

  it('compares the offered quantity with the portal; reads never make an excluded key pending', async () => {
    open('rules-remote');
    setStockRules(db, RULES);
    rederiveOffers(db, 1);
    const remote = new RemoteStock(db);
    remote.storeRead(
      [
        { kind: 'factory', dc: '', sku: 'SKU-1', quantity: 100, platformSku: null },
        { kind: 'factory', dc: '', sku: 'DISC-2', quantity: 3, platformSku: null },
      ],
      5,
    );
    await seedDesiredStock(
      db,
      box.dataDir,
      'factory',
      [
        { dc: '', sku: 'SKU-1', quantity: 900 }, // offers 100: what the portal holds
        { dc: '', sku: 'DISC-2', quantity: 50 },
      ],
      'file:1',
      10,
    );
    expect(pendingKeys()).toEqual([]);
    expect(
      remote.storeRead(
        [{ kind: 'factory', dc: '', sku: 'DISC-2', quantity: 4, platformSku: null }],
        20,
      ),
    ).toEqual({ differences: 0, drifted: [] });
    expect(pendingKeys()).toEqual([]);
    // A key made pending otherwise (a failure retry) is settled, never sent.
    new PendingStock(db).mark([{ kind: 'factory', dc: '', sku: 'DISC-2' }], 30);
    const next = new PendingStock(db).next('factory', 10);
    expect(next).toEqual([
      { kind: 'factory', dc: '', sku: 'DISC-2', desired: 4, remote: 4, failure: null },
    ]);
  });

  it('re-derives every key when the rules change, making pending only keys whose offer changed', async () => {
    open('rules-rederive');
    await seedFactory([
      ['A-1', 10],
      ['A-2', 0],
      ['B-1', 10],
      ['C-1', 10],
    ]);
    const failures = new StockFailures(db);
    failAt('C-1', 10, 11);
    failAt('B-1', 10, 11);

    // Unchanged rules: nothing to do.
    expect(rederiveOffers(db, 20).ran).toBe(false);

    setStockRules(db, [
      { sku: 'A-*', buffer: 2 },
      { sku: 'C-*', exclude: true },
    ]);
    const r = rederiveOffers(db, 30);
    // A-2 offered 0 → 0 (buffer 2 on 0): its rule changed, its offer did not.
    expect(r).toEqual({
      changed: 3,
      offerChanged: 1,
      newlyPending: 1,
      newlyExcluded: 1,
      noLongerExcluded: 0,
      failuresCleared: 1,
      ran: true,
    });
    expect(pendingKeys()).toEqual(['factory::A-1']);
    expect(failures.list().map((f) => f.sku)).toEqual(['B-1']);
    expect(rowsOf('factory')).toEqual([
      {
        dc: '',
        sku: 'A-1',
        erp: 10,
        quantity: 8,
        rule: 'rules[0]: sku A-* → buffer 2',
        excluded: 0,
      },
      {
        dc: '',
        sku: 'A-2',
        erp: 0,
        quantity: 0,
        rule: 'rules[0]: sku A-* → buffer 2',
        excluded: 0,
      },
      { dc: '', sku: 'B-1', erp: 10, quantity: 10, rule: null, excluded: 0 },
      {
        dc: '',
        sku: 'C-1',
        erp: 10,
        quantity: 10,
        rule: 'rules[1]: sku C-* → exclude',
        excluded: 1,
      },
    ]);

    // The same rules again (a restart): nothing runs.
    expect(rederiveOffers(db, 40).ran).toBe(false);

    // Back to no rules: C-1 is offered again, A-1 back to 10; A-2 stays 0.
    db.exec('DELETE FROM pending_stock');
    setStockRules(db, []);
    const back = rederiveOffers(db, 50);
    expect(back).toMatchObject({
      changed: 3,
      offerChanged: 2,
      noLongerExcluded: 1,
      newlyPending: 2,
    });
    expect(pendingKeys()).toEqual(['factory::A-1', 'factory::C-1']);
  });
  it('counts a key already pending whose offer changes without marking it again, and drops what an excluded key owed', async () => {
    open('rules-rederive-pending');
    await seedFactory([
      ['A-1', 10],
      ['A-2', 10],
      ['D-1', 10],
      ['E-1', 10],
    ]);
    // A-1 and D-1 still owe a push from earlier (since 5).
    new PendingStock(db).mark(
      [
        { kind: 'factory', dc: '', sku: 'A-1' },
        { kind: 'factory', dc: '', sku: 'D-1' },
      ],
      5,
    );
    // A failure of a key the rules leave alone stays; one of a key offering another quantity goes.
    const failures = new StockFailures(db);
    failAt('E-1', 10, 6);
    failAt('A-2', 10, 6);

    setStockRules(db, [
      { sku: 'A-*', max: 4 },
      { sku: 'D-*', exclude: true },
    ]);
    expect(rederiveOffers(db, 30)).toEqual({
      changed: 3,
      offerChanged: 2,
      newlyPending: 1,
      newlyExcluded: 1,
      noLongerExcluded: 0,
      failuresCleared: 1,
      ran: true,
    });
    const since = db.prepare('SELECT sku, since FROM pending_stock ORDER BY sku').all() as {
      sku: string;
      since: number;
    }[];
    // A-1 keeps the time it first owed a push; D-1, excluded now, owes nothing.
    expect(since).toEqual([
      { sku: 'A-1', since: 5 },
      { sku: 'A-2', since: 30 },
    ]);
    expect(failures.list().map((f) => f.sku)).toEqual(['E-1']);
  });
});
