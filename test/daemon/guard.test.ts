import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { freePort } from '../setup/redis.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const WRITES = ['POST /factory-stocks/bulk-update', 'POST /distribution-centre-stocks/bulk-update'];
const writeCalls = (h: Harness) => h.sim.stats().requests.filter((r) => WRITES.includes(r.route));
const portal = (i: number) => h.sim.store.factoryStock(seededSku(i))?.stock_quantity;
const keys = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const json = (output: string) => JSON.parse(output.slice(output.search(/[[{]/)));
const folder = (name: string) => readdirSync(join(h.box.dataDir, name)).sort();

/** 60 seeded keys at 100 + i, pushed: the portal is known to hold them. */
async function establish(): Promise<void> {
  // Written two minutes ago: the files of the test come after it.
  h.drop(
    'base.csv',
    factoryCsv(keys(0, 60).map((i) => [seededSku(i), 100 + i] as const)),
    new Date(Date.now() - 120_000),
  );
  await waitUntil(() => keys(0, 60).every((i) => portal(i) === 100 + i), {
    timeoutMs: 20_000,
    message: 'the base file on the portal',
  });
  await h.waitForIdle();
}

const heldEvent = (file: string) => (l: { event?: string; file?: unknown }) =>
  l.event === 'file.held' && l.file === file;

describe('guard rails in the running daemon', () => {
  it('holds a mass-zero file (no write call), applies later files, survives a restart; release applies it with newer keys winning; reject moves one to failed/', async () => {
    const port = await freePort();
    h = await startHarness('guard', {}, { HTTP_PORT: String(port) });
    await h.start();
    await establish();
    h.sim.resetStats();

    // The ERP zeroes 55 of the 60 keys: held, nothing reaches the portal.
    const massZero = keys(0, 60).map((i) => [seededSku(i), i < 55 ? 0 : 100 + i] as const);
    h.drop('mass-zero.csv', factoryCsv(massZero), new Date(Date.now() - 60_000));
    const held = await h.daemon!.waitFor(heldEvent('mass-zero.csv'), 15_000, 'file.held');
    expect(held.level).toBe('warn');
    expect(held.tripped).toEqual(['zero', 'drop']);
    const heldId = held.heldId as number;
    expect(folder('held')).toEqual([
      expect.stringMatching(/-mass-zero\.csv$/),
      expect.stringMatching(/-mass-zero\.csv\.report\.json$/),
    ]);
    const report = JSON.parse(
      readFileSync(join(h.box.dataDir, 'held', folder('held')[1]!), 'utf8'),
    );
    expect(report).toMatchObject({
      file: 'mass-zero.csv',
      held: true,
      outcome: 'held',
      guard: {
        heldId,
        figures: { keysNamed: 60, keysInStock: 60, keysZeroed: 55 },
        thresholds: { GUARD_ZERO_PERCENT: 50, GUARD_DROP_PERCENT: 80, GUARD_MIN_KEYS: 50 },
      },
    });
    expect(report.guard.examples).toHaveLength(20);
    await h.waitForIdle();
    expect(writeCalls(h)).toEqual([]);
    expect(portal(0)).toBe(100);

    // A normal file dropped after it is applied as usual.
    h.drop('correction.csv', factoryCsv(keys(0, 5).map((i) => [seededSku(i), 7] as const)));
    await waitUntil(() => keys(0, 5).every((i) => portal(i) === 7), {
      timeoutMs: 15_000,
      message: 'the later file on the portal',
    });

    // held, status and metrics show it.
    const list = await h.cli(['held', '--json']);
    expect(list.code).toBe(0);
    expect(json(list.output)).toEqual([
      expect.objectContaining({
        id: heldId,
        file: 'mass-zero.csv',
        source: 'file',
        heldAt: expect.any(String),
        reason: expect.stringMatching(/55 of the 60 keys/),
      }),
    ]);
    const human = (await h.cli(['held'])).output;
    expect(human).toMatch(/^1 held by the guard rails/m);
    expect(human).toMatch(
      new RegExp(`^  ${heldId}  mass-zero\\.csv \\(held/.*-mass-zero\\.csv\\)  held `, 'm'),
    );
    expect(human).toMatch(
      /keys named 60 \(0 unknown to the portal\), in stock 60, would be 0: 55; sum \d+ → \d+/,
    );
    const status = json((await h.cli(['status', '--json'])).output);
    expect(status.held).toMatchObject({ files: 1, snapshots: 0 });
    expect(status.health.verdict).toBe('needs a person');
    expect((await h.cli(['status'])).output).toMatch(
      /held +1 file\(s\) and 0 snapshot read\(s\) held since/,
    );
    // The metrics are read every 5 s: read now, as the next refresh would, they show it.
    await waitUntil(
      async () => {
        await h.runNow('metrics');
        return /supplier_sync_held\{source="file"\} 1/.test(
          await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
        );
      },
      { timeoutMs: 15_000, message: 'the held file in /metrics' },
    );

    // Held files survive a restart.
    expect(await h.stop()).toBe(0);
    await h.start();
    expect(json((await h.cli(['held', '--json'])).output).map((e: { id: number }) => e.id)).toEqual(
      [heldId],
    );

    // Release: applied as it stands; the keys the later file set keep the later values.
    const released = await h.cli(['release', String(heldId)]);
    expect(released.code, released.output).toBe(0);
    expect(released.output).toMatch(/applied: 60 keys, 5 superseded by newer files/);
    await waitUntil(() => keys(5, 55).every((i) => portal(i) === 0), {
      timeoutMs: 15_000,
      message: 'the released file on the portal',
    });
    expect(keys(0, 5).map(portal)).toEqual([7, 7, 7, 7, 7]);
    expect(keys(55, 60).map(portal)).toEqual(keys(55, 60).map((i) => 100 + i));
    expect(folder('held')).toEqual([]);
    const processed = folder('processed').filter((n) => n.endsWith('-mass-zero.csv.report.json'));
    expect(processed).toHaveLength(1);
    expect(
      JSON.parse(readFileSync(join(h.box.dataDir, 'processed', processed[0]!), 'utf8')),
    ).toMatchObject({
      file: 'mass-zero.csv',
      outcome: 'processed',
      stock: { keys: 60, supersededByNewerFile: 5 },
      guard: { released: { heldId } },
    });
    expect(json((await h.cli(['held', '--json'])).output)).toEqual([]);

    // A second release of the same id, and an unknown id: exit 1 with a clear message.
    const again = await h.cli(['release', String(heldId)]);
    expect(again.code).toBe(1);
    expect(again.output).toMatch(/is no longer held: released/);
    const unknown = await h.cli(['release', '999']);
    expect(unknown.code).toBe(1);
    expect(unknown.output).toMatch(/nothing held has id 999/);
    expect((await h.cli(['reject', '999'])).code).toBe(1);
    expect((await h.cli(['release', 'abc'])).code).toBe(2);

    // The range back in stock, then another mass-zero file: reject moves it to failed/ with its
    // report; nothing reaches the portal.
    h.drop('restock.csv', factoryCsv(keys(0, 60).map((i) => [seededSku(i), 200 + i] as const)));
    await waitUntil(() => keys(0, 60).every((i) => portal(i) === 200 + i), {
      timeoutMs: 15_000,
      message: 'the restocked range on the portal',
    });
    await h.waitForIdle();
    h.sim.resetStats();
    h.drop('zero-again.csv', factoryCsv(keys(0, 60).map((i) => [seededSku(i), 0] as const)));
    const second = await h.daemon!.waitFor(heldEvent('zero-again.csv'), 15_000, 'file.held');
    const rejected = await h.cli(['reject', String(second.heldId)]);
    expect(rejected.code, rejected.output).toBe(0);
    expect(rejected.output).toMatch(/moved to failed\//);
    expect(folder('held')).toEqual([]);
    const failed = folder('failed');
    expect(failed).toEqual([
      expect.stringMatching(/-zero-again\.csv$/),
      expect.stringMatching(/-zero-again\.csv\.report\.json$/),
    ]);
    expect(
      JSON.parse(readFileSync(join(h.box.dataDir, 'failed', failed[1]!), 'utf8')),
    ).toMatchObject({
      file: 'zero-again.csv',
      outcome: 'failed',
      reason: expect.stringMatching(/^rejected by an operator/),
    });
    await h.waitForIdle();
    expect(writeCalls(h)).toEqual([]);
    expect(portal(59)).toBe(259);

    // A held file removed from held/ by hand: release is refused, nothing applied.
    h.drop('zero-third.csv', factoryCsv(keys(0, 60).map((i) => [seededSku(i), 0] as const)));
    const third = await h.daemon!.waitFor(heldEvent('zero-third.csv'), 15_000, 'file.held');
    for (const n of folder('held')) unlinkSync(join(h.box.dataDir, 'held', n));
    const refused = await h.cli(['release', String(third.heldId)]);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/no longer in held\//);
    expect(existsSync(join(h.box.dataDir, 'inbox', 'zero-third.csv'))).toBe(false);
    expect(portal(59)).toBe(259);
    expect(await h.stop()).toBe(0);
  }, 120_000);

  it('lets a small file through under GUARD_MIN_KEYS, and everything through with the checks at 100', async () => {
    h = await startHarness('guard-off');
    await h.start();
    await establish();
    // 10 keys zeroed: fewer in-stock keys named than GUARD_MIN_KEYS (50), applied.
    h.drop('small.csv', factoryCsv(keys(0, 10).map((i) => [seededSku(i), 0] as const)));
    await waitUntil(() => keys(0, 10).every((i) => portal(i) === 0), {
      timeoutMs: 15_000,
      message: 'the small file on the portal',
    });
    expect(await h.stop()).toBe(0);

    await h.start({ GUARD_ZERO_PERCENT: '100', GUARD_DROP_PERCENT: '100' });
    h.drop('all-zero.csv', factoryCsv(keys(0, 60).map((i) => [seededSku(i), 0] as const)));
    await waitUntil(() => keys(0, 60).every((i) => portal(i) === 0), {
      timeoutMs: 15_000,
      message: 'the mass-zero file on the portal with the checks off',
    });
    expect(h.daemon!.lines.filter((l) => l.event === 'file.held')).toEqual([]);
    expect(await h.stop()).toBe(0);
  });

  it('holds a snapshot whose table the ERP emptied; the last applied values stay; reject drops it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-erp-'));
    const snapshot = join(dir, 'erp.db');
    const write = (path: string, rows: ReadonlyArray<readonly [string, number]>) => {
      const db = new Database(path);
      db.exec(
        'CREATE TABLE factory_stock (sku TEXT, stock_quantity INTEGER); CREATE TABLE dc_stock (distribution_centre_code TEXT, sku TEXT, stock_quantity INTEGER);',
      );
      const insert = db.prepare('INSERT INTO factory_stock VALUES (?, ?)');
      for (const [sku, q] of rows) insert.run(sku, q);
      db.close();
    };
    write(
      snapshot,
      keys(0, 3).map((i) => [seededSku(i), 40 + i] as const),
    );
    try {
      h = await startHarness('guard-snapshot', {}, { SNAPSHOT_DB: snapshot });
      await h.start();
      await waitUntil(() => keys(0, 3).every((i) => portal(i) === 40 + i), {
        timeoutMs: 15_000,
        message: 'the snapshot on the portal',
      });
      await h.waitForIdle();
      // The ERP's night job empties the table (a new file renamed over the old one).
      write(`${snapshot}.new`, []);
      renameSync(`${snapshot}.new`, snapshot);
      const held = await h.daemon!.waitForEvent('snapshot.held', 15_000);
      expect(held.reason).toBe(
        'the factory query returned no rows where the last applied read had 3',
      );
      const list = json((await h.cli(['held', '--json'])).output);
      expect(list).toEqual([
        expect.objectContaining({
          id: held.heldId,
          file: 'snapshot',
          source: 'snapshot',
          tripped: ['emptied'],
        }),
      ]);
      expect(json((await h.cli(['status', '--json'])).output).held).toMatchObject({
        files: 0,
        snapshots: 1,
      });
      expect(keys(0, 3).map(portal)).toEqual([40, 41, 42]);

      const rejected = await h.cli(['reject', String(held.heldId)]);
      expect(rejected.code, rejected.output).toBe(0);
      expect(rejected.output).toMatch(/dropped/);
      expect(json((await h.cli(['held', '--json'])).output)).toEqual([]);

      // The ERP fills the table again: read and applied as usual.
      write(
        `${snapshot}.new`,
        keys(0, 3).map((i) => [seededSku(i), 50 + i] as const),
      );
      renameSync(`${snapshot}.new`, snapshot);
      await waitUntil(() => keys(0, 3).every((i) => portal(i) === 50 + i), {
        timeoutMs: 15_000,
        message: 'the refilled snapshot on the portal',
      });
      expect(await h.stop()).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
