import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVE_DC_CODES } from '../../src/simulator/seed.ts';
import { runCliInProcess } from '../helpers/cliInProcess.ts';
import {
  dcCsv,
  factoryCsv,
  type Harness,
  seededSku,
  startHarness,
} from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

/** STOCK_RULES_FILE through the real daemon and the simulator (#17). */
let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const DC0 = ACTIVE_DC_CODES[0]!;
const DC1 = ACTIVE_DC_CODES[1]!;

/** Items sent in factory (or DC) bulk updates since the simulator's stats were last reset. */
const itemsWritten = (h: Harness, kind: 'factory' | 'dc') =>
  h.sim
    .stats()
    .requests.filter(
      (r) =>
        r.route ===
        (kind === 'factory'
          ? 'POST /factory-stocks/bulk-update'
          : 'POST /distribution-centre-stocks/bulk-update'),
    )
    .reduce((n, r) => n + (r.items ?? 0), 0);

const factoryQty = (h: Harness, i: number) =>
  h.sim.store.factoryStock(seededSku(i))?.stock_quantity;

/** The report of the one handled file whose name ends with `name`. */
function reportOf(h: Harness, name: string) {
  const dir = join(h.box.dataDir, 'processed');
  const file = readdirSync(dir).find((f) => f.endsWith(`${name}.report.json`));
  if (file === undefined) throw new Error(`no report for ${name}`);
  return JSON.parse(readFileSync(join(dir, file), 'utf8'));
}

describe('stock rules (real daemon, simulator)', () => {
  it('refuses to start on a bad rules file, naming the rule and the field (exit 78)', async () => {
    h = await startHarness('rules-bad');
    const file = join(h.box.dataDir, 'rules.json');
    writeFileSync(
      file,
      JSON.stringify({ rules: [{ sku: 'A*' }, { sku: 'DISC-*', percent: 150 }] }),
    );
    const r = await runCliInProcess(['run'], { ...h.env, STOCK_RULES_FILE: file });
    expect(r.code).toBe(78);
    expect(r.output).toMatch(
      /configuration error: STOCK_RULES_FILE: .*rules\.json: rules\[1\] \(sku "DISC-\*"\), percent: percent must be from 0 to 100/,
    );
  });

  it('buffers, shares and mapped locations reach the portal; an excluded SKU is never written', async () => {
    h = await startHarness('rules-push');
    const file = join(h.box.dataDir, 'rules.json');
    writeFileSync(
      file,
      JSON.stringify({
        locations: { 'WH-LONDON': DC0 },
        rules: [
          { sku: seededSku(9), exclude: true },
          { kind: 'dc', dc: DC0, buffer: 2 },
          { kind: 'factory', sku: 'SKU-000000*', percent: 50 },
        ],
      }),
    );
    h.sim.store.setFactoryStock(seededSku(9), 4321); // what the portal holds is left as it is
    const d = await h.start({ STOCK_RULES_FILE: file });
    expect((await d.waitForEvent('rules.loaded')).rules).toBe(3);

    h.drop(
      'factory.csv',
      factoryCsv([
        [seededSku(0), 10],
        [seededSku(1), 11],
        [seededSku(9), 77],
        [seededSku(20), 33],
      ]),
    );
    h.drop(
      'dc.csv',
      dcCsv([
        ['WH-LONDON', seededSku(0), 10],
        [DC1, seededSku(1), 10],
        ['WH-NOWHERE', seededSku(2), 5],
      ]),
    );
    await waitUntil(
      () =>
        factoryQty(h!, 0) === 5 &&
        factoryQty(h!, 1) === 5 &&
        factoryQty(h!, 20) === 33 &&
        h!.sim.store.dcStock(DC0, seededSku(0))?.stock_quantity === 8 &&
        h!.sim.store.dcStock(DC1, seededSku(1))?.stock_quantity === 10,
      { timeoutMs: 20_000, message: 'offered quantities on the portal' },
    );
    await h.waitForIdle();
    expect(factoryQty(h, 9)).toBe(4321);
    expect(itemsWritten(h, 'factory')).toBe(3);

    const factory = reportOf(h, 'factory.csv');
    expect(factory.stock.offers).toMatchObject({
      erpUnits: 131,
      offeredUnits: 43,
      adjusted: 2,
      excluded: 1,
      byRule: [
        { rule: `rules[0]: sku ${seededSku(9)} → exclude`, keys: 1 },
        { rule: 'rules[2]: kind factory, sku SKU-000000* → percent 50', keys: 2 },
      ],
    });
    const dc = reportOf(h, 'dc.csv');
    expect(dc.locationsMapped).toBe(1);
    expect(dc.rejected).toEqual([
      {
        line: 4,
        key: `dc:WH-NOWHERE:${seededSku(2)}`,
        field: 'distribution_centre_code',
        reason: 'unknown distribution centre',
        value: 'WH-NOWHERE',
      },
    ]);
    expect(dc.stock.offers.examples).toEqual([
      {
        key: `dc:${DC0}:${seededSku(0)}`,
        erp: 10,
        offered: 8,
        rule: `rules[1]: kind dc, dc ${DC0} → buffer 2`,
      },
    ]);
    expect(await h.stop()).toBe(0);
  });

  it('an edit of the rules pushes only the keys whose offer changed; a bad edit keeps the old rules', async () => {
    h = await startHarness('rules-edit');
    const file = join(h.box.dataDir, 'rules.json');
    const rules = (extra: object[]) =>
      JSON.stringify({ rules: [{ sku: seededSku(0), buffer: 1 }, ...extra] });
    writeFileSync(file, rules([]));
    const d = await h.start({ STOCK_RULES_FILE: file });
    const rows = Array.from({ length: 10 }, (_, i) => [seededSku(i), 100 + i] as const);
    h.drop('factory.csv', factoryCsv(rows));
    await waitUntil(
      () =>
        factoryQty(h!, 0) === 99 && rows.slice(1).every(([, q], i) => factoryQty(h!, i + 1) === q),
      { timeoutMs: 20_000, message: 'first push' },
    );
    await h.waitForIdle();
    h.sim.resetStats();

    // Edited in place: one more key is capped.
    writeFileSync(file, rules([{ sku: seededSku(3), max: 50 }]));
    await h.runNow('settings-files'); // as the next look at the file (every 2 s) would
    const applied = await d.waitFor(
      (l) => l.event === 'rules.applied' && l.reason === 'file changed',
      10_000,
    );
    expect(applied).toMatchObject({ offerChanged: 1, newlyPending: 1, keysChanged: 1 });
    await waitUntil(() => factoryQty(h!, 3) === 50, { timeoutMs: 15_000, message: 'cap pushed' });
    await h.waitForIdle();
    expect(itemsWritten(h, 'factory')).toBe(1);
    expect(factoryQty(h, 0)).toBe(99);

    // A bad edit (replaced by a rename) is logged and the last good rules stay.
    writeFileSync(join(h.box.dataDir, '.rules.tmp'), '{"rules": [{"sku": "X", "percent": 200}]}');
    renameSync(join(h.box.dataDir, '.rules.tmp'), file);
    // Reported once read the same twice (not a file caught half-written).
    await h.runNow('settings-files');
    await h.runNow('settings-files');
    const invalid = await d.waitFor((l) => l.event === 'rules.invalid', 10_000);
    expect(invalid.level).toBe('warn');
    expect(String(invalid.problem)).toMatch(/rules\[0\] \(sku "X"\), percent: /);
    h.drop(
      'again.csv',
      factoryCsv([
        [seededSku(0), 10],
        [seededSku(3), 300],
      ]),
    );
    await waitUntil(() => factoryQty(h!, 0) === 9 && factoryQty(h!, 3) === 50, {
      timeoutMs: 15_000,
      message: 'the old rules applied to a new file',
    });
    expect(await h.stop()).toBe(0);
  });
});
