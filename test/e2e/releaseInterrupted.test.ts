/**
 * A release is all or nothing as seen from outside (#28.5): a real `release` child working alone
 * (no daemon running) is cut in the middle of its merge — SIGKILL, or a second Ctrl-C — and
 * `status` shows the unfinished apply until a second `release` finishes it, or the daemon does
 * at its start. State read from the same state.db.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { HeldStore } from '../../src/state/inbox/heldStore.ts';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { runCli } from '../helpers/daemonProcess.ts';
import { waitUntil } from '../helpers/sandbox.ts';

const KEYS = 100_000;
let h: Harness | undefined;
let db: StateDb | undefined;
afterEach(async () => {
  db?.close();
  db = undefined;
  await h?.cleanup();
  h = undefined;
});

const json = (output: string) => JSON.parse(output.slice(output.search(/[[{]/)));

/** A held snapshot read of KEYS factory keys at 7, as the guard rails would have kept it. */
function heldSnapshot(state: StateDb): number {
  function* rows() {
    for (let i = 0; i < KEYS; i++)
      yield { dc: '', sku: `SNAP-${String(i).padStart(6, '0')}`, quantity: 7 };
  }
  return new HeldStore(state).hold(
    {
      source: 'snapshot',
      fileId: null,
      name: 'snapshot',
      storedAs: null,
      kind: null,
      contentHash: 'test-snapshot',
      reason: 'held by the test',
      report: JSON.stringify({ rowsRead: { factory: KEYS, dc: 0 } }),
      sourceAt: Date.now() - 60_000,
      heldAt: Date.now(),
    },
    [{ kind: 'factory', rows: rows() }],
  );
}

const merged = (state: StateDb, heldId: number) =>
  state.prepare('SELECT rows FROM staged_applies WHERE held_id = ?').pluck(true).get(heldId) as
    | number
    | undefined;
const applied = (state: StateDb) =>
  state
    .prepare("SELECT COUNT(*) FROM desired_stock WHERE sku LIKE 'SNAP-%' AND quantity = 7")
    .pluck(true)
    .get() as number;

/** Starts `release ID` as a child and cuts it once part of its apply is merged. */
async function cutRelease(heldId: number, cut: 'SIGKILL' | 'two Ctrl-C'): Promise<number> {
  const child = runCli(['release', String(heldId)], h!.env);
  const state = db!;
  await waitUntil(() => (merged(state, heldId) ?? 0) > 0, {
    timeoutMs: 60_000,
    intervalMs: 2,
    message: 'the release to merge its first chunk',
  });
  if (cut === 'SIGKILL') child.kill('SIGKILL');
  else {
    // The first goes unheeded (the release says it goes on); the second stops it at once.
    child.kill('SIGINT');
    await waitUntil(() => child.output().includes('the release goes on to its end'), {
      intervalMs: 2,
      message: 'the first Ctrl-C answered',
    });
    child.kill('SIGINT');
  }
  const code = await child.exited;
  expect(code, child.output()).toBe(cut === 'SIGKILL' ? 'SIGKILL' : 1);
  const left = merged(state, heldId);
  expect(left, 'the apply was cut before its end').toBeDefined();
  expect(left!).toBeLessThan(KEYS);
  return left!;
}

describe('a release cut in the middle of its merge', () => {
  it('killed: status shows the unfinished apply; a second release finishes it (every key once)', async () => {
    h = await startHarness('release-killed');
    db = openStateDb(join(h.box.dataDir, 'state.db'));
    const heldId = heldSnapshot(db);

    const left = await cutRelease(heldId, 'SIGKILL');
    expect(applied(db)).toBe(left);
    const status = json((await h.cli(['status', '--json'])).output);
    expect(status.unfinishedApplies).toEqual([
      expect.objectContaining({ source: 'snapshot', heldId, keysMerged: left }),
    ]);
    expect((await h.cli(['status'])).output).toMatch(
      new RegExp(
        `\\nunfinished +apply of snapshot \\(release of held ${heldId}\\) decided .*, ${left} keys merged so far`,
      ),
    );
    expect(new HeldStore(db).get(heldId)?.status).toBe('released');

    // No daemon: the second release works alone and finishes the first one's apply.
    const again = await h.cli(['release', String(heldId)]);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(
      new RegExp(
        `released snapshot read ${heldId}: ${KEYS} keys applied.*\\(finishing an interrupted apply\\)`,
      ),
    );
    expect(applied(db)).toBe(KEYS);
    expect(merged(db, heldId)).toBeUndefined();
    expect(json((await h.cli(['status', '--json'])).output).unfinishedApplies).toEqual([]);
  });

  it('a second Ctrl-C: the daemon, started after, finishes the apply at its start', async () => {
    h = await startHarness('release-interrupted');
    db = openStateDb(join(h.box.dataDir, 'state.db'));
    const heldId = heldSnapshot(db);

    await cutRelease(heldId, 'two Ctrl-C');
    const d = await h.start();
    await d.waitFor((l) => l.event === 'ingest.apply_resumed' && l.source === 'snapshot');
    await waitUntil(() => merged(db!, heldId) === undefined, { message: 'the apply finished' });
    expect(applied(db)).toBe(KEYS);
    expect(json((await h.cli(['status', '--json'])).output).unfinishedApplies).toEqual([]);
  });
});
