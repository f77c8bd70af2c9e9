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
import { processInboxFile } from '../../src/inventory/ingest/process.ts';
import { fileIdentity, type InboxEntry, isIgnoredName } from '../../src/inventory/names.ts';
import {
  InboxWatcher,
  type InboxWatcherOptions,
} from '../../src/inventory/watcher/inboxWatcher.ts';
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

function start(options: Partial<InboxWatcherOptions> = {}) {
  env = makeIngestEnv('watch');
  const seen: InboxEntry[] = [];
  watcher = new InboxWatcher({
    dataDir: env.dataDir,
    stabilityMs: 150,
    polling: false,
    pollIntervalMs: 100,
    scanIntervalMs: 60_000,
    log: env.capture.log,
    onFile: (entry) => {
      seen.push(entry);
    },
    ...options,
  });
  return { env, watcher, seen, names: () => seen.map((e) => e.name) };
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
    await waitUntil(() => t.seen.length === 3, { message: 'three files offered' });
    expect(t.names()).toEqual(['c.csv', 'b.csv', 'a.csv']);
    expect(t.seen[0]).toMatchObject({ path: join(t.env.paths.inbox, 'c.csv'), size: 23 });
    for (const d of ['processed', 'failed', 'outbox'] as const)
      expect(existsSync(t.env.paths[d])).toBe(true);
  });

  it('offers a file dropped while it runs, once', async () => {
    const t = start();
    await t.watcher.start();
    t.env.drop('new.csv', 'sku,stock_quantity\nA,1\n');
    await waitUntil(() => t.seen.length === 1, { message: 'file offered' });
    await new Promise((r) => setTimeout(r, 400));
    expect(t.names()).toEqual(['new.csv']);
  });

  it('waits for a file written slowly in pieces until it stops changing', async () => {
    const t = start({ stabilityMs: 300 });
    await t.watcher.start();
    const path = join(t.env.paths.inbox, 'slow.csv');
    writeFileSync(path, 'sku,stock_quantity\n');
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 100));
      appendFileSync(path, `S${i},${i}\n`);
      expect(t.seen).toEqual([]);
    }
    await waitUntil(() => t.seen.length === 1, { message: 'slow file offered' });
    expect(t.seen[0]?.size).toBe(19 + 6 * 5);
  });

  it('ignores temporary names until they are renamed', async () => {
    const t = start();
    await t.watcher.start();
    t.env.drop('x.csv.tmp', 'sku,stock_quantity\nA,1\n');
    t.env.drop('.hidden.csv', 'sku,stock_quantity\nA,1\n');
    await new Promise((r) => setTimeout(r, 400));
    expect(t.seen).toEqual([]);
    renameSync(join(t.env.paths.inbox, 'x.csv.tmp'), join(t.env.paths.inbox, 'x.csv'));
    await waitUntil(() => t.seen.length === 1, { message: 'renamed file offered' });
    expect(t.names()).toEqual(['x.csv']);
  });

  it('the periodic scan finds a file whose event never came', async () => {
    // Polling so slow that no event arrives during the test: only the scan can find the file.
    const t = start({ polling: true, pollIntervalMs: 600_000, scanIntervalMs: 1000 });
    await t.watcher.start();
    t.env.drop('missed.csv', 'sku,stock_quantity\nA,1\n');
    await new Promise((r) => setTimeout(r, 300));
    expect(t.seen).toEqual([]);
    await waitUntil(() => t.seen.length === 1, { message: 'scan found the file', timeoutMs: 5000 });
    expect(t.names()).toEqual(['missed.csv']);
  });

  it('works in polling mode', async () => {
    const t = start({ polling: true, pollIntervalMs: 50 });
    await t.watcher.start();
    t.env.drop('p.csv', 'sku,stock_quantity\nA,1\n');
    await waitUntil(() => t.seen.length === 1, { message: 'polled file offered' });
  });

  it('hands links and FIFOs over at once, never subfolders; processing moves them to failed/', async () => {
    const env0 = makeIngestEnv('watch');
    env = env0;
    const seen: string[] = [];
    watcher = new InboxWatcher({
      dataDir: env0.dataDir,
      stabilityMs: 100,
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
    await waitUntil(() => env0.list('inbox').length === 1, { message: 'inbox emptied of files' });
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
    await waitUntil(() => t.seen.length === 1, { message: 'first offer' });
    await t.watcher.scan();
    await waitUntil(() => t.seen.length === 2, { message: 'second offer after a scan' });
    expect(fileIdentity(t.seen[0]!)).toBe(fileIdentity(t.seen[1]!));
  });
});
