import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rejectHeld, releaseHeld } from '../../src/inventory/index.ts';
import { readSnapshot } from '../../src/inventory/snapshot/read.ts';
import { HeldStore } from '../../src/state/inbox/heldStore.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { stagingDir } from '../../src/state/staging/scratchFiles.ts';
import { runCliInProcess } from '../helpers/cliInProcess.ts';
import { type IngestEnv, makeIngestEnv, snapshotDeps, writeSnapshotDb } from './helpers.ts';

const guard = { zeroPercent: 50, dropPercent: 80, minKeys: 5 };
let env: IngestEnv;
let snapPath: string;
beforeEach(() => {
  env = makeIngestEnv('guard-snapshot');
  mkdirSync(env.paths.held, { recursive: true });
  snapPath = join(env.dataDir, 'erp', 'snapshot.db');
});
afterEach(async () => {
  await env.cleanup();
});

/** Writes the snapshot anew (a rename over the old file), dated `at`. */
const writeSnapshot = (factory: ReadonlyArray<readonly [string, number]>, at?: Date) =>
  writeSnapshotDb(snapPath, factory, [], at);
const deps = () => snapshotDeps(env, snapPath, { guard });

const rows = (q: (i: number) => number) =>
  Array.from({ length: 10 }, (_, i) => [`S${i}`, q(i)] as const);
const quantities = () => env.desired().map((r) => r.quantity);
const applies = () =>
  env.db.prepare('SELECT staged_file AS file FROM staged_applies ORDER BY id').all() as Array<{
    file: string;
  }>;
const scratchFiles = () =>
  existsSync(stagingDir(env.dataDir)) ? readdirSync(stagingDir(env.dataDir)) : [];
const decision = { db: () => env.db, now: Date.now };
const decide = () => ({ db: decision.db(), dataDir: env.dataDir, now: decision.now });

/** The portal holds what the last read asked for (as a push would have made it). */
function pushed(): void {
  env.portalHolds(env.desired());
}

/** A read of stock 10–19 applied (two minutes ago) and pushed; then the snapshot zeroed (a minute ago). */
async function goodThenZeroed(): Promise<void> {
  writeSnapshot(
    rows((i) => 10 + i),
    new Date(Date.now() - 120_000),
  );
  expect((await readSnapshot(deps())).status).toBe('read');
  pushed();
  writeSnapshot(
    rows(() => 0),
    new Date(Date.now() - 60_000),
  );
}

describe('guard rails on the snapshot source', () => {
  it('holds a read that zeroes the range, keeps it aside, and applies it on release with newer files winning', async () => {
    await goodThenZeroed();
    const out = await readSnapshot(deps());
    expect(out).toMatchObject({ status: 'held', heldId: 1 });
    expect(quantities()).toEqual(rows((i) => 10 + i).map(([, q]) => q));
    expect(env.capture.events('snapshot.held')).toEqual([
      expect.objectContaining({ heldId: 1, tripped: ['zero', 'drop'], level: 'warn' }),
    ]);

    // The same content read again (the schedule): still held under the same id, no new entry.
    const again = await readSnapshot(deps());
    expect(again).toMatchObject({ status: 'held', heldId: 1 });
    expect(new HeldStore(env.db).open().map((e) => e.id)).toEqual([1]);
    expect(env.capture.events('snapshot.still_held')).toHaveLength(1);

    // A newer file sets S0 meanwhile; the release keeps it.
    env.drop('newer.csv', 'sku,stock_quantity\nS0,77\n');
    expect((await env.process('newer.csv')).status).toBe('processed');
    const writtenAt = Math.floor(statSync(snapPath).mtimeMs);
    const before = Date.now();
    const released = await releaseHeld(decide(), 1);
    // S0 is the newer file's; the other nine differ from what the portal holds.
    expect(released).toEqual({
      source: 'snapshot',
      id: 1,
      keys: 10,
      pendingKeys: 9,
      superseded: 1,
    });
    expect(quantities()).toEqual([77, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(env.dirty()).toHaveLength(10); // S0 was pending since the newer file
    expect(new HeldStore(env.db).open()).toEqual([]);
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM held_rows').get()).toEqual({ n: 0 });
    // Applied as a read is: source snapshot at the snapshot's time, recorded in kv; nothing left
    // of the staged apply.
    expect(
      env.db
        .prepare(
          "SELECT DISTINCT source, source_at AS at, source_file_id AS fileId FROM desired_stock WHERE sku != 'S0'",
        )
        .all(),
    ).toEqual([{ source: 'snapshot', at: writtenAt, fileId: null }]);
    const kv = new KeyValueStore(env.db);
    expect(kv.get('snapshot.applied_at')).toBeGreaterThanOrEqual(before);
    expect(kv.get('snapshot.last_rows')).toEqual({ factory: 10, dc: 0 });
    expect(applies()).toEqual([]);
    expect(scratchFiles()).toEqual([]);
    // The next read of it is judged against the portal as it is now: once the pushes made the
    // portal hold what the release asked, it passes.
    pushed();
    expect((await readSnapshot(deps())).status).toBe('read');
    await expect(releaseHeld(decide(), 1)).rejects.toThrow(/no longer held: released/);
  });

  it('a release exempts that read only: the same content read after a restore is held again', async () => {
    writeSnapshot(rows((i) => 10 + i));
    expect((await readSnapshot(deps())).status).toBe('read');
    pushed();
    writeSnapshot(rows(() => 0));
    expect(await readSnapshot(deps())).toMatchObject({ status: 'held', heldId: 1 });
    await releaseHeld(decide(), 1);
    pushed();
    // A newer read restores the stock, and the portal holds it.
    writeSnapshot(rows((i) => 10 + i));
    expect((await readSnapshot(deps())).status).toBe('read');
    pushed();
    // The released content again: held again, under a new entry; nothing applied.
    writeSnapshot(rows(() => 0));
    const again = await readSnapshot(deps());
    expect(again).toMatchObject({ status: 'held', heldId: 2 });
    expect(quantities()).toEqual(rows((i) => 10 + i).map(([, q]) => q));
    expect(new HeldStore(env.db).open().map((e) => e.id)).toEqual([2]);
  });

  it('the released read itself, read again before its pushes land, passes; the ERP writing it anew is judged again', async () => {
    await goodThenZeroed();
    expect(await readSnapshot(deps())).toMatchObject({ status: 'held', heldId: 1 });
    await releaseHeld(decide(), 1);
    // The schedule reads the unchanged snapshot again; the portal still holds the old stock.
    for (let i = 0; i < 2; i++) {
      expect(await readSnapshot(deps())).toMatchObject({ status: 'read' });
    }
    expect(new HeldStore(env.db).open()).toEqual([]);
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM held').get()).toEqual({ n: 1 });
    expect(env.capture.events('snapshot.held')).toHaveLength(1);
    expect(env.capture.events('snapshot.read').slice(-2)).toEqual([
      expect.objectContaining({ released: expect.objectContaining({ heldId: 1 }) }),
      expect.objectContaining({ released: expect.objectContaining({ heldId: 1 }) }),
    ]);
    expect(quantities()).toEqual(rows(() => 0).map(([, q]) => q));
    // The ERP writes the same zeroes anew: a new statement, judged against the portal: held.
    writeSnapshot(rows(() => 0));
    expect(await readSnapshot(deps())).toMatchObject({ status: 'held', heldId: 2 });
  });

  it('holds a read whose table suddenly returns no rows; a newer good read supersedes it', async () => {
    writeSnapshot(rows(() => 5));
    await readSnapshot(deps());
    writeSnapshot([]);
    const out = await readSnapshot(deps());
    expect(out).toMatchObject({
      status: 'held',
      reason: 'the factory query returned no rows where the last applied read had 10',
    });
    writeSnapshot(rows(() => 6));
    expect((await readSnapshot(deps())).status).toBe('read');
    expect(new HeldStore(env.db).get(1)?.status).toBe('superseded');
    expect(env.capture.events('snapshot.held_superseded')).toHaveLength(1);
    await expect(rejectHeld(decide(), 1)).rejects.toThrow(/superseded by a newer snapshot read/);
  });

  it('reject drops a held read: nothing applied, its rows gone, the same content held again is not a new entry', async () => {
    writeSnapshot(rows(() => 5));
    await readSnapshot(deps());
    writeSnapshot([]);
    await readSnapshot(deps());
    expect(await rejectHeld(decide(), 1)).toMatchObject({ source: 'snapshot', destination: null });
    expect(quantities()).toEqual(rows(() => 5).map(([, q]) => q));
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM held_rows').get()).toEqual({ n: 0 });
    expect(await readSnapshot(deps())).toMatchObject({ status: 'held', heldId: 1 });
    expect(new HeldStore(env.db).open()).toEqual([]);
    await expect(releaseHeld(decide(), 7)).rejects.toMatchObject({ code: 'E_HELD_UNKNOWN' });
  });

  it('the release command applies a held snapshot read itself, with the stock rules, and prints what it applied', async () => {
    writeSnapshot(rows(() => 5));
    await readSnapshot(deps());
    pushed();
    writeSnapshot(rows((i) => (i === 9 ? 40 : 0)));
    expect(await readSnapshot(deps())).toMatchObject({ status: 'held', heldId: 1 });
    const rulesFile = join(env.dataDir, 'stock-rules.json');
    writeFileSync(rulesFile, JSON.stringify({ rules: [{ sku: 'S9', max: 30 }] }));

    const r = await runCliInProcess(['release', '1', '--json'], {
      SYNC_DATA_DIR: env.dataDir,
      STOCK_RULES_FILE: rulesFile,
      // No daemon to ask for a push: the command says so and still succeeds.
      REDIS_URL: 'redis://127.0.0.1:9',
    });
    expect(r.code, r.output).toBe(0);
    // One line, the result: nothing else on stdout or stderr.
    expect(r.output.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.output)).toEqual({
      source: 'snapshot',
      id: 1,
      keys: 10,
      pendingKeys: 10,
      superseded: 0,
      daemonNudged: false,
    });
    expect(quantities()).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 30]);
    expect(new HeldStore(env.db).get(1)?.status).toBe('released');
    expect(applies()).toEqual([]);
    expect(scratchFiles()).toEqual([]);
  });

  it('with SNAPSHOT_ABSENT=zero, a truncated snapshot is held: the keys it omits count as named', async () => {
    writeSnapshot(rows(() => 5));
    await readSnapshot(deps());
    pushed();
    env.db
      .prepare("INSERT INTO kv (key, value, updated_at) VALUES ('remote.read_at.factory', '1', 1)")
      .run();
    writeSnapshot(rows(() => 5).slice(0, 2));
    const out = await readSnapshot({ ...deps(), absent: 'zero' });
    expect(out).toMatchObject({ status: 'held', heldId: 1 });
    expect(quantities()).toEqual(rows(() => 5).map(([, q]) => q));
    expect(JSON.parse(new HeldStore(env.db).get(1)!.report)).toMatchObject({
      figures: { keysNamed: 10, keysInStock: 10, keysZeroed: 8 },
    });
  });
});
