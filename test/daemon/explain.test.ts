import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVE_DC_CODES } from '../../src/simulator/seed.ts';
import {
  dcCsv,
  factoryCsv,
  type Harness,
  seededSku,
  startHarness,
} from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: Harness;
let erpDir: string | undefined;
afterEach(async () => {
  await h?.cleanup();
  if (erpDir) rmSync(erpDir, { recursive: true, force: true });
  erpDir = undefined;
});

const json = (output: string) => JSON.parse(output.slice(output.indexOf('{')));

const explain = async (key: string) => {
  const r = await h.cli(['explain', key, '--json']);
  expect(r.code, r.output).toBe(0);
  return json(r.output);
};

const isoNear = (value: unknown, before: number) => {
  expect(typeof value).toBe('string');
  const t = Date.parse(value as string);
  expect(t).toBeGreaterThanOrEqual(before - 1000);
  expect(t).toBeLessThanOrEqual(Date.now() + 1000);
};

/** No raw JSON and no epoch milliseconds in what a person reads. */
const readable = (text: string) => expect(text).not.toMatch(/[{}]|\b1[78]\d{11}\b/);

/**
 * Each test runs over a dozen CLI commands as child processes beside the daemon: on a loaded
 * machine each takes seconds.
 */
const TIMEOUT_MS = 180_000;

describe('explain through the running daemon', () => {
  it('tells a stock key its story: source, offer, portal value, pushes, failures, pending', {
    timeout: TIMEOUT_MS,
  }, async () => {
    erpDir = mkdtempSync(join(tmpdir(), 'supplier-sync-explain-erp-'));
    const snapshot = join(erpDir, 'erp.db');
    const erp = new Database(snapshot);
    erp.exec(
      `CREATE TABLE factory_stock (sku TEXT, stock_quantity INTEGER);
       CREATE TABLE dc_stock (distribution_centre_code TEXT, sku TEXT, stock_quantity INTEGER);
       INSERT INTO factory_stock VALUES ('${seededSku(20)}', 9);`,
    );
    erp.close();
    const rules = join(erpDir, 'rules.json');
    writeFileSync(
      rules,
      JSON.stringify({
        rules: [
          { sku: seededSku(3), exclude: true },
          { sku: seededSku(4), buffer: 2, percent: 50 },
        ],
      }),
    );
    const started = Date.now();
    h = await startHarness(
      'explain-stock',
      {},
      {
        SNAPSHOT_DB: snapshot,
        SYNC_TIMEZONE: 'Europe/Berlin',
        STOCK_RULES_FILE: rules,
        // The guard rails look at files naming 3 keys in stock; only the zero check counts.
        GUARD_MIN_KEYS: '3',
        GUARD_DROP_PERCENT: '100',
      },
    );
    // DC pushes are refused for good (403): their keys stay pending until a person acts.
    h.sim.faults.set({
      routeFaults: [{ route: 'POST /distribution-centre-stocks/bulk-update', status: 403 }],
    });
    await h.start();
    await waitUntil(() => h.sim.store.factoryStock(seededSku(20))?.stock_quantity === 9, {
      timeoutMs: 15_000,
      message: 'the snapshot row pushed',
    });

    h.drop(
      'stock.csv',
      factoryCsv([
        [seededSku(0), 5],
        [seededSku(1), 42],
        ['NO-SUCH-SKU', 3],
        [seededSku(3), 8],
        [seededSku(4), 12],
      ]),
    );
    await h.daemon!.waitFor(
      (l) => l.event === 'stock.item_failed' && l.sku === 'NO-SUCH-SKU',
      15_000,
      'the unknown SKU rejected',
    );
    await waitUntil(
      () =>
        h.sim.store.factoryStock(seededSku(1))?.stock_quantity === 42 &&
        h.sim.store.factoryStock(seededSku(4))?.stock_quantity === 5,
      { message: 'the file pushed' },
    );

    const landed = await explain(`factory:${seededSku(1)}`);
    expect(landed).toMatchObject({
      key: `factory:${seededSku(1)}`,
      kind: 'factory',
      dc: null,
      sku: seededSku(1),
      erpQuantity: 42,
      offeredQuantity: 42,
      portalQuantity: 42,
      pending: false,
      rule: null,
      failure: null,
      held: null,
      lastPush: { outcome: 'updated', quantity: 42, error: null },
      // Line 1 is the header: SKU 2's row is line 3.
      source: { file: 'stock.csv', line: 3 },
    });
    isoNear(landed.source.at, started - 60_000);
    isoNear(landed.source.appliedAt, started);
    isoNear(landed.lastPush.at, started);
    expect(readdirSync(join(h.box.dataDir, 'processed'))).toContain(landed.source.storedAs);

    const refused = await explain('factory:NO-SUCH-SKU');
    expect(refused).toMatchObject({
      erpQuantity: 3,
      source: { file: 'stock.csv', line: 4 },
      portalQuantity: null,
      pending: false,
      lastPush: { outcome: 'rejected', quantity: 3 },
      failure: { attempts: 1, quantity: 3, notFound: true },
    });
    expect(refused.failure.error).toMatch(/not found/i);
    expect(Date.parse(refused.failure.nextAttemptAt)).toBeGreaterThan(Date.now());

    // The stock rules: what the ERP asked for beside what is offered, and the rule's label.
    expect(await explain(`factory:${seededSku(4)}`)).toMatchObject({
      erpQuantity: 12,
      offeredQuantity: 5,
      excluded: false,
      portalQuantity: 5,
      rule: `rules[1]: sku ${seededSku(4)} → buffer 2, percent 50`,
      source: { file: 'stock.csv', line: 6 },
    });
    expect(await explain(`factory:${seededSku(3)}`)).toMatchObject({
      erpQuantity: 8,
      offeredQuantity: null,
      excluded: true,
      pending: false,
      lastPush: null,
      rule: `rules[0]: sku ${seededSku(3)} → exclude`,
    });

    const fromSnapshot = await explain(`factory:${seededSku(20)}`);
    expect(fromSnapshot).toMatchObject({
      erpQuantity: 9,
      portalQuantity: 9,
      source: { snapshot: true },
    });

    const dc = ACTIVE_DC_CODES[0]!;
    h.drop('dc.csv', dcCsv([[dc, seededSku(2), 17]]));
    await h.daemon!.waitForEvent('queue.fix_config', 15_000);
    const owed = await explain(`dc:${dc}:${seededSku(2)}`);
    expect(owed).toMatchObject({
      kind: 'dc',
      dc,
      sku: seededSku(2),
      erpQuantity: 17,
      pending: true,
      lastPush: null,
      failure: null,
      source: { file: 'dc.csv', line: 2 },
    });
    isoNear(owed.pendingSince, started);

    // The same as plain sentences, local times.
    const text = (await h.cli(['explain', `factory:${seededSku(1)}`])).output;
    expect(text).toContain(`factory:${seededSku(1)}`);
    expect(text).toMatch(/ERP:\s+asks for 42, from line 3 of stock\.csv, written /);
    expect(text).toMatch(/Offered:\s+42 \(no stock rule applies\)/);
    expect(text).toMatch(/Portal:\s+holds 42, as of \d\d:\d\d \((now|\d+ s ago)\)/);
    expect(text).toMatch(/Push:\s+none owed/);
    expect(text).toMatch(/Last push:\s+\d\d:\d\d \((now|\d+ s ago)\): sent 42, the portal took it/);
    readable(text);
    const refusedText = (await h.cli(['explain', 'factory:NO-SUCH-SKU'])).output;
    expect(refusedText).toMatch(/Failure:\s+3 refused: .*not found.*; 1 attempt\(s\)/i);
    readable(refusedText);
    expect((await h.cli(['explain', `factory:${seededSku(4)}`])).output).toMatch(
      /ERP:\s+asks for 12, from line 6 of stock\.csv[\s\S]*Offered:\s+5, by rules\[1\]: sku SKU-0000005 → buffer 2, percent 50\./,
    );
    expect((await h.cli(['explain', `factory:${seededSku(3)}`])).output).toMatch(
      /Offered:\s+nothing, never pushed: excluded by rules\[0\]: sku SKU-0000004 → exclude\./,
    );
    const owedText = (await h.cli(['explain', `dc:${dc}:${seededSku(2)}`])).output;
    expect(owedText).toMatch(/Push:\s+owed since \d\d:\d\d/);
    expect((await h.cli(['explain', `factory:${seededSku(20)}`])).output).toMatch(
      /ERP:\s+asks for 9, from the ERP snapshot/,
    );

    // A file that would zero every key it names is held: the keys it names say so.
    h.drop(
      'zero.csv',
      factoryCsv([
        [seededSku(0), 0],
        [seededSku(1), 0],
        [seededSku(20), 0],
      ]),
    );
    const held = await h.daemon!.waitFor(
      (l) => l.event === 'file.held' && l.file === 'zero.csv',
      15_000,
      'file.held',
    );
    expect(await explain(`factory:${seededSku(1)}`)).toMatchObject({
      erpQuantity: 42,
      portalQuantity: 42,
      source: { file: 'stock.csv', line: 3 },
      held: held.heldId,
    });
    expect((await explain(`factory:${seededSku(4)}`)).held).toBeNull();
    expect((await h.cli(['explain', `factory:${seededSku(1)}`])).output).toMatch(
      new RegExp(`Held:\\s+zero\\.csv \\(held id ${held.heldId}\\) names it, held because `),
    );
  });

  it('tells a shipment its story, and refuses unknown and malformed keys', {
    timeout: TIMEOUT_MS,
  }, async () => {
    h = await startHarness('explain-shipment');
    await h.start();
    const outbox = join(h.box.dataDir, 'outbox');
    const file = await waitUntil(() => readdirSync(outbox).find((f) => !f.startsWith('.')), {
      timeoutMs: 15_000,
      message: 'an outbox file',
    });
    const carried = JSON.parse(readFileSync(join(outbox, file), 'utf8')) as {
      shipments: Array<{ order_number: string }>;
    };
    const [first, second] = carried.shipments.map((s) => s.order_number);
    h.drop(
      'confirm.csv',
      `order_number,carrier,tracking_number,action\n${first},DPD,T-100,shipped\n${first},DPD,T-100,collected\n`,
    );
    await h.daemon!.waitFor(
      (l) =>
        l.event === 'shipment.confirmed' && l.order_number === first && l.action === 'collected',
      15_000,
      'both confirmations',
    );

    const e = await explain(`shipment:${first}`);
    expect(e).toMatchObject({
      key: `shipment:${first}`,
      orderNumber: first,
      shipment: { order_number: first },
      outboxFile: { name: file, inOutbox: true },
    });
    expect(Date.parse(e.confirmedAt)).toBeGreaterThan(0);
    expect(e.confirmations).toHaveLength(2);
    expect(e.confirmations[0]).toMatchObject({
      action: 'shipped',
      carrier: 'DPD',
      trackingNumber: 'T-100',
      outcome: 'confirmed',
      file: 'confirm.csv',
      line: 2,
    });
    expect(e.confirmations[1]).toMatchObject({
      action: 'collected',
      outcome: 'confirmed',
      line: 3,
    });
    // The `failures` form of a confirmation key names the same order.
    expect((await explain(`shipment:${first}:shipped`)).orderNumber).toBe(first);

    const waiting = await explain(`shipment:${second}`);
    expect(waiting).toMatchObject({
      outboxFile: { name: file },
      confirmedAt: null,
      confirmations: [],
    });

    const text = (await h.cli(['explain', `shipment:${first}`])).output;
    expect(text).toContain(`To the ERP: `);
    expect(text).toContain(`in ${file}`);
    readable(text);
    expect(text).toMatch(
      /From ERP:\s+shipped with DPD T-100 from line 2 of confirm\.csv, received .*: confirmed \d\d:\d\d/,
    );
    expect((await h.cli(['explain', `shipment:${second}`])).output).toMatch(
      /Confirmed:\s+not yet\.[\s\S]*From ERP:\s+no confirmation received/,
    );

    const unknown = await h.cli(['explain', 'shipment:ORD-NEVER']);
    expect(unknown.code).toBe(1);
    expect(unknown.output).toMatch(/nothing is known of order ORD-NEVER/);
    const unknownSku = await h.cli(['explain', 'factory:NEVER-SEEN']);
    expect(unknownSku.code).toBe(1);
    expect(unknownSku.output).toMatch(/nothing is known of factory:NEVER-SEEN/);
    const malformed = ['factory:', 'dc:DC-LON', 'shipment:', 'SKU-1', 'order:1'];
    const answers = await Promise.all(malformed.map((bad) => h.cli(['explain', bad])));
    answers.forEach((r, i) => {
      expect(r.code, malformed[i]).toBe(2);
      expect(r.output).toContain(`not a key: '${malformed[i]}'`);
    });
    expect((await h.cli(['explain'])).code).toBe(2);
  });
});
