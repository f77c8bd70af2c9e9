/**
 * Crashes of the file pipeline as real processes (test/fixtures/ingest-crash.ts), killed with
 * SIGKILL at the moments that matter: between commit and move, in the before-apply check, in the
 * middle of the chunked merge, between a guard's decision to hold and the move, and while another
 * process merges when a held read is released. State is read from the same state.db afterwards.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { releaseHeld } from '../../src/inventory/index.ts';
import { recoverInbox } from '../../src/inventory/ingest/recover.ts';
import { readSnapshot } from '../../src/inventory/snapshot/read.ts';
import { HeldStore } from '../../src/state/inbox/heldStore.ts';
import { InboxLedger } from '../../src/state/inbox/inboxLedger.ts';
import { stagingDir } from '../../src/state/staging/scratchFiles.ts';
import {
  type IngestEnv,
  makeIngestEnv,
  snapshotDeps,
  writeSnapshotDb,
} from '../inventory/helpers.ts';

const NODE = join(process.cwd(), 'node_modules/.bin/node');
const FIXTURE = join(process.cwd(), 'test/fixtures/ingest-crash.ts');

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('crash');
});
afterEach(async () => {
  await env.cleanup();
});

function crashAfterCommit(name: string) {
  const child = spawnSync(NODE, [FIXTURE, env.dataDir, name], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(child.signal, child.stderr).toBe('SIGKILL');
}

describe('a crash between commit and move', () => {
  it('leaves the file in inbox/; the next pass only finishes the move: applied once, one ledger row', async () => {
    env.drop('stock.csv', 'sku,stock_quantity\nA,1\nB,2\n');
    crashAfterCommit('stock.csv');

    // State after the crash: data committed, ledger row 'committed', file still in inbox/.
    expect(env.list('inbox')).toEqual(['stock.csv']);
    expect(env.list('processed')).toEqual([]);
    const ledger = new InboxLedger(env.db);
    expect(ledger.committed()).toHaveLength(1);
    expect(env.desired().map((r) => r.quantity)).toEqual([1, 2]);

    // A marker: if the file were applied again, this would be overwritten.
    env.db.prepare("UPDATE desired_stock SET quantity = 42 WHERE sku = 'A'").run();

    const out = await env.process('stock.csv');
    expect(out.status).toBe('processed');
    expect(out.ledgerId).toBe(1);
    expect(env.desired().map((r) => r.quantity)).toEqual([42, 2]);
    expect(env.list('inbox')).toEqual([]);
    expect(env.list('failed')).toEqual([]);
    expect(env.list('processed')).toHaveLength(2);
    expect(env.report(out)).toMatchObject({
      file: 'stock.csv',
      outcome: 'processed',
      rowsAccepted: 2,
    });
    expect(ledger.committed()).toEqual([]);
    expect(env.db.prepare('SELECT id, status FROM inbox_files').all()).toEqual([
      { id: 1, status: 'processed' },
    ]);
    expect(env.capture.events('file.resumed')).toHaveLength(1);
  });

  it('confirmations are stored once across the crash', async () => {
    env.drop('c.csv', 'order_number,carrier,tracking_number\nO1,UPS,T1\n');
    crashAfterCommit('c.csv');
    const out = await env.process('c.csv');
    expect(out.status).toBe('processed');
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM shipment_confirmations').get()).toEqual({
      n: 1,
    });
  });

  it('a failed file committed before the crash still ends in failed/', async () => {
    env.drop('bad.csv', 'item,qty\nA,1\n');
    crashAfterCommit('bad.csv');
    const out = await env.process('bad.csv');
    expect(out.status).toBe('failed');
    expect(env.list('failed')).toHaveLength(2);
    expect(env.list('inbox')).toEqual([]);
  });

  it('recoverInbox settles a row whose file was moved before the crash', async () => {
    env.drop('stock.csv', 'sku,stock_quantity\nA,1\n');
    crashAfterCommit('stock.csv');
    const ledger = new InboxLedger(env.db);
    const row = ledger.committed()[0]!;
    // Simulate a crash after the rename, before the final status.
    renameSync(join(env.paths.inbox, 'stock.csv'), join(env.paths.processed, row.destName!));
    const result = await recoverInbox(env.deps);
    expect(result).toEqual({ finished: 1, waiting: [] });
    expect(ledger.get(row.id)?.status).toBe('processed');
    expect(env.list('processed')).toEqual([row.destName, `${row.destName}.report.json`]);
  });
});

describe('a kill at any point of a staged apply: all or nothing', () => {
  const csv = (rows: Array<[string, number]>) =>
    `sku,stock_quantity\n${rows.map(([s, q]) => `${s},${q}`).join('\n')}\n`;
  const ten = Array.from({ length: 10 }, (_, i) => [`S${i}`, i + 1] as [string, number]);
  const scratchFiles = () =>
    existsSync(stagingDir(env.dataDir)) ? readdirSync(stagingDir(env.dataDir)) : [];
  const applies = () => env.db.prepare('SELECT COUNT(*) AS n FROM staged_applies').get();
  function crash(name: string, mode: 'after-chunk' | 'in-check') {
    const child = spawnSync(NODE, [FIXTURE, env.dataDir, name, mode], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(child.signal, child.stderr).toBe('SIGKILL');
  }

  it('killed in the before-apply step: nothing applied; at start the scratch file goes, the file is read again whole', async () => {
    env.drop('s.csv', csv(ten));
    crash('s.csv', 'in-check');
    expect(env.desired()).toEqual([]);
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM inbox_files').get()).toEqual({ n: 0 });
    expect(scratchFiles()).toHaveLength(1);

    await recoverInbox(env.deps);
    expect(scratchFiles()).toEqual([]);
    const out = await env.process('s.csv');
    expect(out.status).toBe('processed');
    expect(env.desired()).toHaveLength(10);
  });

  it('killed mid-merge: the decided apply is finished at start, every key once, then the file moves', async () => {
    env.drop('s.csv', csv(ten));
    crash('s.csv', 'after-chunk');
    // After the kill: the apply is decided (ledger row and staged_applies row), 2 of 10 merged.
    const ledger = new InboxLedger(env.db);
    expect(ledger.committed()).toHaveLength(1);
    expect(applies()).toEqual({ n: 1 });
    expect(env.desired()).toHaveLength(2);
    expect(scratchFiles()).toHaveLength(1);

    const result = await recoverInbox(env.deps);
    expect(result.waiting).toEqual(['s.csv']);
    expect(applies()).toEqual({ n: 0 });
    expect(env.desired().map((r) => r.quantity)).toEqual(ten.map(([, q]) => q));
    expect(scratchFiles()).toEqual([]);
    expect(env.capture.events('ingest.apply_resumed')).toHaveLength(1);

    const out = await env.process('s.csv');
    expect(out).toMatchObject({ status: 'processed', ledgerId: 1 });
    expect(env.report(out).stock).toMatchObject({ keys: 10, newlyPending: 10 });
    expect(env.dirty()).toHaveLength(10);
    expect(env.list('inbox')).toEqual([]);
  });

  it('killed mid-merge and the scratch file lost: the file is read again from the start', async () => {
    env.drop('s.csv', csv(ten));
    crash('s.csv', 'after-chunk');
    for (const f of scratchFiles()) rmSync(join(stagingDir(env.dataDir), f));
    const out = await env.process('s.csv');
    expect(out.status).toBe('processed');
    expect(env.desired()).toHaveLength(10);
    expect(env.capture.events('ingest.apply_abandoned')).toHaveLength(1);
    // The abandoned ledger row is gone; the file's new row is the only one.
    expect(env.db.prepare('SELECT status FROM inbox_files').all()).toEqual([
      { status: 'processed' },
    ]);
  });
});

describe('a crash in the guard rails', () => {
  const guard = { zeroPercent: 50, dropPercent: 80, minKeys: 1 };
  /** A factory CSV: the first `zeroed` of the 30 known keys at 0, the rest at 10. */
  const csv = (zeroed: number) =>
    `sku,stock_quantity\n${Array.from({ length: 30 }, (_, i) => `S${i},${i < zeroed ? 0 : 10}`).join('\n')}\n`;
  const held = () => readdirSync(env.paths.held).sort();
  beforeEach(() => {
    mkdirSync(env.paths.held, { recursive: true });
    // The portal is known to hold 30 factory keys, each at 10.
    env.portalHolds(Array.from({ length: 30 }, (_, i) => ({ sku: `S${i}`, quantity: 10 })));
  });

  it('a crash between the decision to hold and the move leaves the file in inbox/, never applied; the next pass holds it', async () => {
    env.drop('mass-zero.csv', csv(30));
    const child = spawnSync(
      NODE,
      [FIXTURE, env.dataDir, 'mass-zero.csv', 'after-commit', 'guard'],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(child.signal, child.stderr).toBe('SIGKILL');
    expect(env.list('inbox')).toEqual(['mass-zero.csv']);
    expect(held()).toEqual([]);
    expect(env.desired()).toEqual([]);
    expect(new InboxLedger(env.db).committed()).toHaveLength(1);

    // A restart: recovery leaves it to the pipeline, which only finishes the move.
    expect(
      (await recoverInbox({ db: env.db, log: env.capture.log, dataDir: env.dataDir })).waiting,
    ).toEqual(['mass-zero.csv']);
    const out = await env.process('mass-zero.csv', { guard });
    expect(out.status).toBe('held');
    expect(env.desired()).toEqual([]);
    expect(held()).toHaveLength(2);
    expect(new HeldStore(env.db).open().map((e) => e.id)).toEqual([1]);
    expect(JSON.parse(readFileSync(out.reportPath!, 'utf8')).outcome).toBe('held');
  });
});

describe('a release of a held snapshot read while another process merges', () => {
  const guard = { zeroPercent: 50, dropPercent: 80, minKeys: 5 };
  let snapPath: string;
  beforeEach(() => {
    mkdirSync(env.paths.held, { recursive: true });
    snapPath = join(env.dataDir, 'erp', 'snapshot.db');
  });
  /** Writes the snapshot anew (a rename over the old file). */
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
  const decide = () => ({ db: env.db, dataDir: env.dataDir, now: Date.now });
  /** The portal holds what the last read asked for (as a push would have made it). */
  function pushed(): void {
    env.portalHolds(env.desired());
  }

  it('a release while another process is in the middle of its merge leaves that apply to it; once the process is gone, the start finishes it', async () => {
    writeSnapshot(rows(() => 5));
    await readSnapshot(deps());
    pushed();
    writeSnapshot(rows(() => 0));
    expect(await readSnapshot(deps())).toMatchObject({ status: 'held', heldId: 1 });

    // Another process (the daemon) has merged 2 of a file's 10 keys and is working on the rest.
    env.drop(
      'f.csv',
      `sku,stock_quantity\n${Array.from({ length: 10 }, (_, i) => `F${i},3`).join('\n')}\n`,
    );
    const child = spawn(NODE, [FIXTURE, env.dataDir, 'f.csv', 'pause-after-chunk'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    try {
      let out = '';
      for await (const chunk of child.stdout) {
        out += String(chunk);
        if (out.includes('paused')) break;
      }
      expect(out).toContain('paused');
      const theirs = applies();
      expect(theirs).toHaveLength(1);
      const fileKeys = () => env.desired().filter((r) => r.sku.startsWith('F')).length;
      expect(fileKeys()).toBe(2);

      const released = await releaseHeld(decide(), 1);
      expect(released).toMatchObject({ source: 'snapshot', keys: 10, pendingKeys: 10 });
      expect(quantities().filter((q) => q === 0)).toHaveLength(10);
      // Theirs is untouched: not merged alongside them, its scratch file still there.
      expect(applies()).toEqual(theirs);
      expect(fileKeys()).toBe(2);
      expect(scratchFiles()).toEqual([theirs[0]!.file]);

      child.kill('SIGKILL');
      await exited;
      await recoverInbox(env.deps);
      expect(applies()).toEqual([]);
      expect(fileKeys()).toBe(10);
      expect(scratchFiles()).toEqual([]);
      expect(env.capture.events('ingest.apply_resumed')).toHaveLength(1);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
