/**
 * Commands that write ask the running daemon (issue #28.6): `release`, `reject`, `failures retry`
 * run while a daemon holds the data dir's writer lock are done by the daemon (its log says so,
 * and says what it did), not beside it; with no daemon the command works alone under the lock.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateDb } from '../../src/state/db.ts';
import { OperatorRequests } from '../../src/state/lock/operatorRequests.ts';
import { takeWriterLock } from '../../src/state/lock/writerLock.ts';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const portal = (i: number) => h.sim.store.factoryStock(seededSku(i))?.stock_quantity;
const keys = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const folder = (name: string) => readdirSync(join(h.box.dataDir, name)).sort();

/** A file zeroing `zeroed` of the 20 seeded keys dropped: held. Its held id. */
async function heldFile(name: string, zeroed: number, mtimeAgoMs: number): Promise<number> {
  const held = h.daemon!.waitFor(
    (l) => l.event === 'file.held' && l.file === name,
    15_000,
    'file.held',
  );
  h.drop(
    name,
    factoryCsv(keys(0, 20).map((i) => [seededSku(i), i < zeroed ? 0 : 100 + i] as const)),
    new Date(Date.now() - mtimeAgoMs),
  );
  return (await held).heldId as number;
}

describe('commands that write, beside a running daemon', () => {
  it('release and reject are done by the daemon, which logs them; the command prints its answer', async () => {
    h = await startHarness('requests', {}, { GUARD_MIN_KEYS: '5' });
    const d = await h.start();
    h.drop(
      'base.csv',
      factoryCsv(keys(0, 20).map((i) => [seededSku(i), 100 + i] as const)),
      new Date(Date.now() - 120_000),
    );
    await waitUntil(() => keys(0, 20).every((i) => portal(i) === 100 + i), {
      timeoutMs: 20_000,
      message: 'the base file on the portal',
    });
    await h.waitForIdle();
    const first = await heldFile('zero-1.csv', 18, 60_000);
    const second = await heldFile('zero-2.csv', 17, 50_000);

    const released = await h.cli(['release', String(first)]);
    expect(released.code, released.output).toBe(0);
    expect(released.output, released.output).toMatch(/applied: 20 keys/);
    // The daemon took the request and released it (the command itself logs nothing).
    const request = d.lines.find((l) => l.event === 'operator.request' && l.action === 'release');
    expect(request).toBeDefined();
    const decided = d.lines.find((l) => l.event === 'held.released');
    expect(decided).toMatchObject({ heldId: first, file: 'zero-1.csv' });
    await waitUntil(() => portal(0) === 0, { message: 'the released file on the portal' });

    const rejected = await h.cli(['reject', String(second)]);
    expect(rejected.code, rejected.output).toBe(0);
    expect(rejected.output).toMatch(/moved to failed\/ with its report/);
    expect(d.lines.find((l) => l.event === 'held.rejected')).toMatchObject({ heldId: second });
    expect(folder('failed').some((n) => n.endsWith('-zero-2.csv'))).toBe(true);

    // The daemon's refusal comes back as the command's own: exit 1 with the daemon's message.
    const again = await h.cli(['release', String(first)]);
    expect(again.code).toBe(1);
    expect(again.output).toMatch(/is no longer held: released/);
    expect(
      d.lines.filter((l) => l.event === 'operator.request' && l.action === 'release'),
    ).toHaveLength(2);
  });

  it('with no daemon the command works alone; while another command holds the lock it waits for it', async () => {
    h = await startHarness('requests-alone');
    await h.start();
    expect(await h.stop()).toBe(0);

    const db = openStateDb(join(h.box.dataDir, 'state.db'));
    try {
      const other = takeWriterLock(h.box.dataDir, db, 'release');
      expect(other.lock).toBeDefined();
      const waiting = h.cli(['failures', 'retry', '--all']);
      // Still waiting while the other command holds the lock.
      await new Promise((r) => setTimeout(r, 300));
      let settled = false;
      void waiting.then(() => {
        settled = true;
      });
      await new Promise((r) => setImmediate(r));
      expect(settled).toBe(false);
      other.lock!.release();
      const retried = await waiting;
      expect(retried.code, retried.output).toBe(0);
      expect(retried.output).toMatch(/put back in line: 0 stock items/);
      // It let go when done: the lock is free.
      const after = takeWriterLock(h.box.dataDir, db, 'test');
      expect(after.lock).toBeDefined();
      after.lock!.release();
    } finally {
      db.close();
    }
  });

  it('a request written by hand that is no action, or not JSON, is answered with an error; the daemon goes on', async () => {
    h = await startHarness('requests-bad');
    const d = await h.start();
    const db = openStateDb(join(h.box.dataDir, 'state.db'));
    try {
      const requests = new OperatorRequests(db);
      const frob = requests.ask('frob', { id: 1 }, Date.now());
      const broken = Number(
        db
          .prepare(
            "INSERT INTO operator_requests (action, args, asked_at) VALUES ('pause', '{', ?)",
          )
          .run(Date.now()).lastInsertRowid,
      );
      const answer = (id: number) => requests.get(id)?.answer ?? undefined;
      await waitUntil(() => answer(frob) !== undefined && answer(broken) !== undefined, {
        message: 'both answered',
      });
      expect(JSON.parse(answer(frob)!)).toMatchObject({
        ok: false,
        message: "not an operator action: 'frob'",
      });
      expect(JSON.parse(answer(broken)!)).toMatchObject({ ok: false });
      const paused = await h.cli(['pause']);
      expect(paused.code, paused.output).toBe(0);
      expect(d.lines.some((l) => l.event === 'sync.paused')).toBe(true);
    } finally {
      db.close();
    }
  });
});
