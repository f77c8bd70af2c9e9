import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fileIdentity,
  type InboxEntry,
  isIgnoredName,
} from '../../src/inventory/inbox/inboxNames.ts';
import { InboxWatcher, type InboxWatcherOptions } from '../../src/inventory/inbox/inboxWatcher.ts';
import { processInboxFile } from '../../src/inventory/ingest/process.ts';
import { MovedClock } from '../api/helpers.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

let env: IngestEnv | undefined;
let watcher: InboxWatcher | undefined;
afterEach(async () => {
  await watcher?.stop();
  watcher = undefined;
  await env?.cleanup();
  env = undefined;
});

/**
 * A watcher on a fresh inbox with a clock the test moves: a file becomes stable only when the
 * test moves time past the stability delay (the watcher's checks run on real timers).
 */
function start(options: Partial<InboxWatcherOptions> = {}) {
  env = makeIngestEnv('watch');
  const seen: InboxEntry[] = [];
  const clock = new MovedClock();
  const stabilityMs = options.stabilityMs ?? 150;
  watcher = new InboxWatcher({
    dataDir: env.dataDir,
    stabilityMs,
    polling: false,
    pollIntervalMs: 100,
    scanIntervalMs: 60_000,
    log: env.capture.log,
    clock,
    onFile: (entry) => {
      seen.push(entry);
    },
    ...options,
  });
  const settling = (file: string) =>
    env!.capture.events('inbox.settling').filter((l) => l.file === file);
  return {
    env,
    watcher,
    seen,
    clock,
    names: () => seen.map((e) => e.name),
    settling,
    /** Moves time on at each look until `n` files have been offered. */
    offered: (n: number, message: string, timeoutMs?: number) =>
      waitUntil(
        () => {
          clock.at += stabilityMs;
          return seen.length >= n;
        },
        { message, ...(timeoutMs ? { timeoutMs } : {}) },
      ),
  };
}

describe('names', () => {
  it('ignores hidden and temporary names', () => {
    for (const n of ['.x.csv', 'a.tmp', 'a.csv.PART', 'a.partial'])
      expect(isIgnoredName(n)).toBe(true);
    for (const n of ['a.csv', 'tmp.csv', 'part.json']) expect(isIgnoredName(n)).toBe(false);
  });

  it('gives a stable identity usable as a job id', () => {
    const e = { name: 'a.csv', size: 10, mtimeMs: 1.5, ino: 7 };
    expect(fileIdentity(e)).toBe(fileIdentity({ ...e }));
    expect(fileIdentity(e)).toMatch(/^inbox-[0-9a-f]{32}$/);
    expect(fileIdentity({ ...e, size: 11 })).not.toBe(fileIdentity(e));
  });
});

describe('InboxWatcher', () => {
  it('creates the folders and offers files present at start, oldest first', async () => {
    const t = start();
    for (const d of ['processed', 'failed', 'outbox'] as const)
      rmSync(t.env.paths[d], { recursive: true });
    const now = Date.now() / 1000;
    for (const [name, age] of [
      ['b.csv', 100],
      ['a.csv', 50],
      ['c.csv', 300],
    ] as const) {
      const p = t.env.drop(name, 'sku,stock_quantity\nA,1\n');
      utimesSync(p, now - age, now - age);
    }
    await t.watcher.start();
    await t.offered(3, 'three files offered');
    expect(t.names()).toEqual(['c.csv', 'b.csv', 'a.csv']);
    expect(t.seen[0]).toMatchObject({ path: join(t.env.paths.inbox, 'c.csv'), size: 23 });
    for (const d of ['processed', 'failed', 'outbox'] as const)
      expect(existsSync(t.env.paths[d])).toBe(true);
  });

  it('offers a file dropped while it runs, once', async () => {
    const t = start();
    await t.watcher.start();
    t.env.drop('new.csv', 'sku,stock_quantity\nA,1\n');
    await t.offered(1, 'file offered');
    // A later file is offered after checks that would have offered the first one again.
    t.env.drop('later.csv', 'sku,stock_quantity\nB,1\n');
    await t.offered(2, 'later file offered');
    expect(t.names()).toEqual(['new.csv', 'later.csv']);
  });

  it('waits for a file written slowly in pieces until it stops changing', async () => {
    const t = start({ stabilityMs: 300 });
    await t.watcher.start();
    const path = join(t.env.paths.inbox, 'slow.csv');
    writeFileSync(path, 'sku,stock_quantity\n');
    const seenAt = (size: number) =>
      waitUntil(() => t.settling('slow.csv').some((l) => l.size === size), {
        message: `slow.csv seen at ${size} bytes`,
      });
    await seenAt(19);
    for (let i = 0; i < 6; i++) {
      t.clock.at += 299; // just short of the stability delay, then it changes again
      appendFileSync(path, `S${i},${i}\n`);
      await seenAt(19 + (i + 1) * 5);
      expect(t.seen).toEqual([]);
    }
    await t.offered(1, 'slow file offered');
    expect(t.seen[0]?.size).toBe(19 + 6 * 5);
  });

  it('ignores temporary names until they are renamed', async () => {
    const t = start();
    await t.watcher.start();
    t.env.drop('x.csv.tmp', 'sku,stock_quantity\nA,1\n');
    t.env.drop('.hidden.csv', 'sku,stock_quantity\nA,1\n');
    t.env.drop('marker.csv', 'sku,stock_quantity\nA,1\n');
    await t.offered(1, 'the file dropped after them offered');
    expect(t.names()).toEqual(['marker.csv']);
    renameSync(join(t.env.paths.inbox, 'x.csv.tmp'), join(t.env.paths.inbox, 'x.csv'));
    await t.offered(2, 'renamed file offered');
    expect(t.names()).toEqual(['marker.csv', 'x.csv']);
    expect(t.env.capture.lines().filter((l) => String(l.file).includes('hidden'))).toEqual([]);
  });

  it('the periodic scan finds a file whose event never came', async () => {
    // Polling so slow that no event arrives during the test: only the scan can find the file.
    const t = start({ polling: true, pollIntervalMs: 600_000, scanIntervalMs: 1000 });
    await t.watcher.start();
    t.env.drop('missed.csv', 'sku,stock_quantity\nA,1\n');
    await t.offered(1, 'scan found the file', 5000);
    expect(t.names()).toEqual(['missed.csv']);
    expect(t.settling('missed.csv').map((l) => l.seenBy)).toEqual(['scan']);
  });

  it('works in polling mode', async () => {
    const t = start({ polling: true, pollIntervalMs: 50 });
    await t.watcher.start();
    t.env.drop('p.csv', 'sku,stock_quantity\nA,1\n');
    await t.offered(1, 'polled file offered');
  });

  it('hands links and FIFOs over at once, never subfolders; processing moves them to failed/', async () => {
    const env0 = makeIngestEnv('watch');
    env = env0;
    const seen: string[] = [];
    const clock = new MovedClock();
    watcher = new InboxWatcher({
      dataDir: env0.dataDir,
      stabilityMs: 100,
      clock,
      polling: false,
      pollIntervalMs: 100,
      scanIntervalMs: 60_000,
      log: env0.capture.log,
      onFile: async (entry) => {
        seen.push(entry.name);
        await processInboxFile(entry.path, env0.deps);
      },
    });
    await watcher.start();
    mkdirSync(join(env0.paths.inbox, 'sub'));
    writeFileSync(join(env0.paths.inbox, 'sub', 'inner.csv'), 'sku,stock_quantity\nA,1\n');
    writeFileSync(join(env0.dataDir, 'target.csv'), 'sku,stock_quantity\nA,1\n');
    symlinkSync(join(env0.dataDir, 'target.csv'), join(env0.paths.inbox, 'link.csv'));
    execFileSync('mkfifo', [join(env0.paths.inbox, 'fifo.csv')]);
    env0.drop('real.csv', 'sku,stock_quantity\nA,1\n');
    await waitUntil(
      () => {
        clock.at += 100;
        return env0.list('inbox').length === 1;
      },
      { message: 'inbox emptied of files' },
    );
    expect(env0.list('inbox')).toEqual(['sub']);
    expect(seen.sort()).toEqual(['fifo.csv', 'link.csv', 'real.csv']);
    const failed = env0.list('failed').filter((n) => !n.endsWith('.report.json'));
    expect(failed.map((n) => n.replace(/^\S+?-\d+-/, '')).sort()).toEqual(['fifo.csv', 'link.csv']);
    expect(env0.desired()).toHaveLength(1);
    await watcher.scan();
    expect(env0.capture.events('inbox.folder_ignored')).toHaveLength(1);
  });

  it('re-offers on a scan a file still in inbox/ (onFile must be idempotent)', async () => {
    const t = start();
    await t.watcher.start();
    t.env.drop('stay.csv', 'sku,stock_quantity\nA,1\n');
    await t.offered(1, 'first offer');
    await t.watcher.scan();
    await t.offered(2, 'second offer after a scan');
    expect(fileIdentity(t.seen[0]!)).toBe(fileIdentity(t.seen[1]!));
  });
});
