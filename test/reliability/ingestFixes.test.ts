/**
 * Regression tests for what the reliability suite found in ingestion (see docs/reliability.md):
 * names too long once prefixed, inbox/ on another file system (EXDEV), names that are not UTF-8.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { moveInboxEntry, type RenameFn } from '../../src/inventory/inbox/inboxMove.ts';
import type { InboxEntry } from '../../src/inventory/inbox/inboxNames.ts';
import { fitName } from '../../src/inventory/inbox/inboxNames.ts';
import { InboxWatcher } from '../../src/inventory/inbox/inboxWatcher.ts';
import { MAX_STORED_NAME_BYTES, storedName } from '../../src/inventory/inbox/storedNames.ts';
import { InboxLedger } from '../../src/state/inbox/inboxLedger.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { type IngestEnv, makeIngestEnv } from '../inventory/helpers.ts';

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('fixes');
});
afterEach(async () => {
  await env.cleanup();
});

/** A rename that fails as it does when inbox/ is a mount of its own. */
const crossDevice: RenameFn = async () => {
  throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
};

const bytes = (s: string) => Buffer.byteLength(s);

describe('stored names fit the file system', () => {
  it('keeps short names whole, and cuts long ones on a character boundary, extension kept', () => {
    const at = Date.UTC(2026, 10, 22, 1, 45, 1);
    expect(storedName(at, 7, 'stock.csv')).toBe('20261122T014501Z-7-stock.csv');
    for (const name of [
      `${'a'.repeat(251)}.csv`,
      `${'日'.repeat(83)}.csv`,
      `${'é'.repeat(120)}.ndjson`,
    ]) {
      const stored = storedName(at, 123456, name);
      expect(bytes(stored)).toBeLessThanOrEqual(MAX_STORED_NAME_BYTES);
      expect(stored).not.toContain('\ufffd');
      expect(Buffer.from(stored).toString('utf8')).toBe(stored);
      expect(stored.endsWith(`~${name.slice(name.lastIndexOf('.'))}`)).toBe(true);
    }
    expect(fitName('x'.repeat(300), 100)).toBe(`${'x'.repeat(99)}~`);
  });

  it('processes a file with a 255-byte name (ASCII and multi-byte): no ENAMETOOLONG, applied once', async () => {
    const ascii = `${'a'.repeat(251)}.csv`;
    const wide = `${'日'.repeat(83)}.csv`;
    expect(bytes(ascii)).toBe(255);
    env.drop(ascii, 'sku,stock_quantity\nLONG-A,5\n');
    env.drop(wide, 'sku,stock_quantity\nLONG-B,6\n');
    for (const name of [ascii, wide]) {
      const out = await env.process(name);
      expect(out.status, name).toBe('processed');
      const report = env.report(out);
      expect(report.file).toBe(name);
      expect(bytes(report.storedAs)).toBeLessThanOrEqual(MAX_STORED_NAME_BYTES);
      expect(existsSync(out.destination!)).toBe(true);
    }
    expect(env.list('inbox')).toEqual([]);
    expect(env.desired().map((r) => [r.sku, r.quantity])).toEqual([
      ['LONG-A', 5],
      ['LONG-B', 6],
    ]);
  });
});

describe('inbox/ on another file system (rename fails with EXDEV)', () => {
  it('copies a regular file into place durably, keeps its mtime, then removes it from inbox/', async () => {
    const src = env.drop('a.csv', 'sku,stock_quantity\nX,1\n');
    const mtime = new Date('2026-01-02T03:04:05Z');
    utimesSync(src, mtime, mtime);
    const read = lstatSync(src);
    const dest = join(env.paths.processed, 'stored-a.csv');
    expect(await moveInboxEntry(src, dest, read, crossDevice)).toBe('copied');
    expect(existsSync(src)).toBe(false);
    expect(readFileSync(dest, 'utf8')).toBe('sku,stock_quantity\nX,1\n');
    expect(statSync(dest).mtime.toISOString()).toBe(mtime.toISOString());
    expect(readdirSync(env.paths.processed)).toEqual(['stored-a.csv']); // no temp left
  });

  it('recreates a symbolic link without following it, and removes a FIFO', async () => {
    const outside = join(env.dataDir, 'outside.csv');
    writeFileSync(outside, 'sku,stock_quantity\nX,1\n');
    const link = join(env.paths.inbox, 'link.csv');
    symlinkSync(outside, link);
    const linkDest = join(env.paths.failed, 'stored-link.csv');
    expect(await moveInboxEntry(link, linkDest, lstatSync(link), crossDevice)).toBe('copied');
    expect(lstatSync(linkDest).isSymbolicLink()).toBe(true);
    expect(readlinkSync(linkDest)).toBe(outside);
    expect(readFileSync(outside, 'utf8')).toBe('sku,stock_quantity\nX,1\n');

    const fifo = join(env.paths.inbox, 'pipe.csv');
    execFileSync('mkfifo', [fifo]);
    const fifoDest = join(env.paths.failed, 'stored-pipe.csv');
    expect(await moveInboxEntry(fifo, fifoDest, lstatSync(fifo), crossDevice)).toBe('removed');
    expect(existsSync(fifo)).toBe(false);
    expect(env.list('inbox')).toEqual([]);
  });

  it('leaves a file that was replaced meanwhile, and reports a vanished one as gone', async () => {
    const src = env.drop('r.csv', 'old');
    const read = lstatSync(src);
    env.drop('r.csv.new', 'new');
    execFileSync('mv', [join(env.paths.inbox, 'r.csv.new'), src]);
    const dest = join(env.paths.processed, 'stored-r.csv');
    expect(await moveInboxEntry(src, dest, read, crossDevice)).toBe('replaced');
    expect(readFileSync(src, 'utf8')).toBe('new');
    expect(existsSync(dest)).toBe(false);
    expect(await moveInboxEntry(join(env.paths.inbox, 'nope.csv'), dest, read, crossDevice)).toBe(
      'gone',
    );
  });

  it('processInboxFile takes the copy path: processed, report beside it, ledger finished', async () => {
    env.drop('x.csv', 'sku,stock_quantity\nA,1\nB,2\n');
    const out = await env.process('x.csv', { hooks: { rename: crossDevice } });
    expect(out.status).toBe('processed');
    expect(env.list('inbox')).toEqual([]);
    expect(env.list('processed')).toEqual([
      env.report(out).storedAs,
      `${env.report(out).storedAs}.report.json`,
    ]);
    expect(env.capture.events('file.moved_by_copy')).toHaveLength(1);
    expect(new InboxLedger(env.db).committed()).toEqual([]);
  });

  it('a crash after the copy but before the unlink: the next pass copies over and finishes, nothing applied twice', async () => {
    env.drop('c.csv', 'sku,stock_quantity\nA,1\n');
    const crash = new Error('simulated crash after commit');
    await expect(
      env.process('c.csv', {
        hooks: {
          rename: crossDevice,
          afterCommit: () => {
            throw crash;
          },
        },
      }),
    ).rejects.toBe(crash);
    // The state a crash between "copy in place" and "unlink" leaves: both copies, row committed.
    const [row] = new InboxLedger(env.db).committed();
    copyFileSync(join(env.paths.inbox, 'c.csv'), join(env.paths.processed, row!.destName!));
    env.db.prepare("UPDATE desired_stock SET quantity = 42 WHERE sku = 'A'").run();

    const out = await env.process('c.csv', { hooks: { rename: crossDevice } });
    expect(out.status).toBe('processed');
    expect(out.ledgerId).toBe(row!.id);
    expect(env.desired().map((r) => r.quantity)).toEqual([42]); // not applied again
    expect(env.list('inbox')).toEqual([]);
    expect(env.list('processed')).toEqual([row!.destName, `${row!.destName}.report.json`]);
  });
});

describe('names that are not valid UTF-8', () => {
  it('are given the name their bytes decode to, then handled like any other file', async () => {
    const raw = Buffer.concat([
      Buffer.from('stock-'),
      Buffer.from([0xe9, 0xff]),
      Buffer.from('.csv'),
    ]);
    writeFileSync(
      Buffer.concat([Buffer.from(`${env.paths.inbox}/`), raw]),
      'sku,stock_quantity\nL1,3\n',
    );
    const seen: InboxEntry[] = [];
    const watcher = new InboxWatcher({
      dataDir: env.dataDir,
      stabilityMs: 50,
      polling: false,
      pollIntervalMs: 100,
      scanIntervalMs: 60_000,
      log: env.capture.log,
      onFile: (entry) => {
        seen.push(entry);
      },
    });
    try {
      await watcher.start();
      await waitUntil(() => seen.length === 1, { message: 'the repaired file to be offered' });
    } finally {
      await watcher.stop();
    }
    expect(seen[0]!.name).toBe('stock-\ufffd\ufffd.csv');
    expect(env.capture.events('inbox.name_repaired')).toMatchObject([
      { file: 'stock-\ufffd\ufffd.csv', bytes: raw.toString('hex') },
    ]);
    const out = await env.process(seen[0]!.name);
    expect(out.status).toBe('processed');
    expect(env.list('inbox')).toEqual([]);
    expect(env.desired().map((r) => [r.sku, r.quantity])).toEqual([['L1', 3]]);
  });
});

describe('reports and logs stay small and complete, whatever the file', () => {
  it('a JSON Lines string holding U+2028 or U+2029 unescaped (as JSON.stringify writes it) is one line', async () => {
    const rows = [
      { sku: 'LS\u2028A', stock_quantity: 1 },
      { sku: 'PS\u2029B', stock_quantity: 2 },
    ];
    env.drop('sep.jsonl', `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const out = await env.process('sep.jsonl');
    expect(out.status).toBe('processed');
    expect(env.report(out)).toMatchObject({ rowsRead: 2, rowsAccepted: 2, rowsRejected: 0 });
    expect(env.desired().map((r) => r.sku)).toEqual(['LS\u2028A', 'PS\u2029B']);
  });

  it('a 2 MB header naming no kind gives a short reason, report and log line', async () => {
    env.drop(
      'wide.csv',
      `${'h'.repeat(2_000_000)},${Array.from({ length: 5000 }, (_, i) => `c${i}`).join(',')}\nA,1\n`,
    );
    // Records up to 4 MiB allowed (the default 1 MiB cap refuses this header outright).
    const out = await env.process('wide.csv', { maxRecordBytes: 4 * 1024 * 1024 });
    expect(out.status).toBe('failed');
    expect(out.reason!.length).toBeLessThan(4000);
    expect(out.reason).toMatch(/and 4981 more/);
    const longest = Math.max(...env.capture.lines().map((l) => JSON.stringify(l).length));
    expect(longest).toBeLessThan(8000);
  });

  it('ignored columns are listed up to 50, each cut to 100 characters', async () => {
    const extra = Array.from({ length: 80 }, (_, i) => `x${i}-${'n'.repeat(i === 0 ? 500 : 1)}`);
    env.drop('extra.csv', `sku,stock_quantity,${extra.join(',')}\nA,1${','.repeat(80)}\n`);
    const report = env.report(await env.process('extra.csv'));
    expect(report.outcome).toBe('processed');
    expect(report.ignoredColumns).toHaveLength(50);
    expect(Math.max(...report.ignoredColumns.map((c) => c.length))).toBeLessThanOrEqual(101);
  });

  it('a file refused whole still names the rows that were bad on their own', async () => {
    env.drop('nokind.jsonl', '42\n"x"\n{"foo":1}\n');
    const out = await env.process('nokind.jsonl');
    expect(out.status).toBe('failed');
    expect(env.report(out)).toMatchObject({
      reason: 'no row names a kind',
      rowsRead: 3,
      rowsAccepted: 0,
      rowsRejected: 3,
      rejected: [{ line: 1 }, { line: 2 }, { line: 3 }],
    });
  });
});
