/**
 * Hostile inbox entries through the real daemon (issue #8): links out of the data dir, a link
 * to a folder, a dangling link, a subfolder, a FIFO, and names with spaces, unicode, a leading
 * dash, quotes, a newline, 255 bytes, bytes that are not UTF-8. Links and special files go to
 * failed/ with a report saying why, odd names are processed, and nothing outside SYNC_DATA_DIR
 * is read, moved or changed.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileReport } from '../../src/inventory/ingest/report.ts';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: Harness | undefined;
let outside: string | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  if (outside) rmSync(outside, { recursive: true, force: true });
  outside = undefined;
});

const OLD_ATIME = new Date('2001-01-01T00:00:00Z');
const MTIME = new Date('2020-01-01T00:00:00Z');

/** Every entry under `dir` (not following links), `.` first. Lists folders: moves their atime. */
function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    out.push(rel || '.');
    if (lstatSync(join(dir, rel)).isDirectory())
      for (const n of readdirSync(join(dir, rel)).sort()) walk(join(rel, n));
  };
  walk('');
  return out;
}

/** What a read (atime) or a write (mtime, ctime, size, inode) would change, by lstat only. */
function stamps(dir: string, entries: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of entries) {
    const st = lstatSync(join(dir, rel));
    out[rel] = `${st.mode}:${st.size}:${st.ino}:${st.mtimeMs}:${st.ctimeMs}:${st.atimeMs}`;
  }
  return out;
}
const withoutAtime = (s: Record<string, string>) =>
  Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v.slice(0, v.lastIndexOf(':'))]));

/** Content hashes of the regular files under `dir` (read once, after the atime checks). */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    const path = join(dir, rel);
    const st = lstatSync(path);
    if (st.isDirectory()) for (const n of readdirSync(path).sort()) walk(join(rel, n));
    else if (st.isFile()) out[rel] = createHash('sha256').update(readFileSync(path)).digest('hex');
  };
  walk('');
  return out;
}

/** Whether reading a file moves its atime here (relatime: when atime is older than mtime). */
function atimeTracksReads(dir: string): boolean {
  const probe = join(dir, 'atime-probe');
  writeFileSync(probe, 'x');
  utimesSync(probe, OLD_ATIME, MTIME);
  readFileSync(probe);
  const moved = lstatSync(probe).atimeMs !== OLD_ATIME.getTime();
  rmSync(probe);
  return moved;
}

/** Every report in processed/ or failed/, by the original file name. */
function reports(dataDir: string, folder: 'processed' | 'failed'): Map<string, FileReport> {
  const dir = join(dataDir, folder);
  const out = new Map<string, FileReport>();
  for (const n of readdirSync(dir)) {
    if (!n.endsWith('.report.json') || n.startsWith('.')) continue;
    const r = JSON.parse(readFileSync(join(dir, n), 'utf8')) as FileReport;
    out.set(r.file, r);
  }
  return out;
}

describe('hostile inbox entries through the daemon', { timeout: 60_000 }, () => {
  it('sets links and special files aside, processes odd names, never touches anything outside the data dir', async () => {
    h = await startHarness('hostile');
    const inbox = join(h.box.dataDir, 'inbox');
    mkdirSync(inbox, { recursive: true });

    // The sentinel: a folder outside SYNC_DATA_DIR that links point into.
    outside = mkdtempSync(join(tmpdir(), 'supplier-sync-outside-'));
    const tracksReads = atimeTracksReads(outside);
    writeFileSync(join(outside, 'outside.csv'), factoryCsv([[seededSku(0), 4242]]));
    mkdirSync(join(outside, 'folder'));
    writeFileSync(join(outside, 'folder', 'inner.csv'), factoryCsv([[seededSku(1), 4243]]));
    const before = contents(outside);
    const entries = listTree(outside);
    for (const p of entries) utimesSync(join(outside, p), OLD_ATIME, MTIME);
    const stats = stamps(outside, entries);

    // Links and special files.
    symlinkSync(join(outside, 'outside.csv'), join(inbox, 'link-out.csv'));
    symlinkSync(join(outside, 'folder'), join(inbox, 'link-dir.csv'));
    symlinkSync(join(outside, 'missing.csv'), join(inbox, 'dangling.csv'));
    execFileSync('mkfifo', [join(inbox, 'pipe.csv')]);
    mkdirSync(join(inbox, 'sub'));
    writeFileSync(join(inbox, 'sub', 'inner.csv'), factoryCsv([[seededSku(2), 4244]]));

    // Odd names, each setting its own SKU. Written under a hidden name, then renamed.
    const odd: Array<[name: string | Buffer, shownAs: string]> = [
      ['stock é 日本.csv', 'stock é 日本.csv'],
      ['-rf.csv', '-rf.csv'],
      [`${'a'.repeat(251)}.csv`, `${'a'.repeat(251)}.csv`],
      [`${'日'.repeat(83)}.csv`, `${'日'.repeat(83)}.csv`],
      [`it's "quoted".csv`, `it's "quoted".csv`],
      ['new\nline.csv', 'new\nline.csv'],
      ['tab\there.csv', 'tab\there.csv'],
      [' leading space.csv', ' leading space.csv'],
      ['back\\slash $(echo x).csv', 'back\\slash $(echo x).csv'],
      [
        Buffer.concat([Buffer.from('latin1-'), Buffer.from([0xe9]), Buffer.from('.csv')]),
        'latin1-\ufffd.csv',
      ],
    ];
    const quantities = new Map<string, readonly [string, number]>();
    for (const [i, [name, shownAs]] of odd.entries()) {
      const tmp = join(inbox, `.drop-${i}`);
      writeFileSync(tmp, factoryCsv([[seededSku(10 + i), 700 + i]]));
      renameSync(
        tmp,
        typeof name === 'string'
          ? join(inbox, name)
          : Buffer.concat([Buffer.from(`${inbox}/`), name]),
      );
      quantities.set(shownAs, [seededSku(10 + i), 700 + i]);
    }
    expect(readdirSync(inbox)).toHaveLength(odd.length + 5);

    const daemon = await h.start();
    const specials = ['link-out.csv', 'link-dir.csv', 'dangling.csv', 'pipe.csv'];
    await waitUntil(
      () => {
        const done = reports(h!.box.dataDir, 'processed');
        const failed = reports(h!.box.dataDir, 'failed');
        return (
          [...quantities.keys()].every((n) => done.has(n)) && specials.every((n) => failed.has(n))
        );
      },
      { timeoutMs: 20_000, message: 'every entry to be handled' },
    );
    // The FIFO did not stop the daemon: a file dropped afterwards is processed too.
    h.drop('after.csv', factoryCsv([[seededSku(40), 940]]));
    quantities.set('after.csv', [seededSku(40), 940]);
    await waitUntil(() => reports(h!.box.dataDir, 'processed').has('after.csv'), {
      timeoutMs: 10_000,
      message: 'a file dropped after the FIFO',
    });
    // The report is written before the file is moved (and the folders flushed): wait for the
    // move of the last one too before counting.
    await waitUntil(() => readdirSync(inbox).length === 1, {
      timeoutMs: 10_000,
      message: 'every regular file moved out of inbox/ (the folder sub/ stays)',
    });

    const failed = reports(h.box.dataDir, 'failed');
    expect([...failed.keys()].sort()).toEqual([...specials].sort());
    // Each entry exactly once: one report per entry, and one stored entry per report.
    const count = (folder: string, reportsOnly: boolean) =>
      readdirSync(join(h!.box.dataDir, folder)).filter(
        (n) => n.endsWith('.report.json') === reportsOnly,
      ).length;
    expect([count('failed', true), count('failed', false)]).toEqual([
      specials.length,
      specials.length,
    ]);
    expect([count('processed', true), count('processed', false)]).toEqual([
      quantities.size,
      quantities.size,
    ]);
    for (const name of ['link-out.csv', 'link-dir.csv', 'dangling.csv']) {
      expect(failed.get(name)!.reason, name).toMatch(/^a symbolic link: /);
      expect(failed.get(name)!.contentHash).toBeNull();
    }
    expect(failed.get('pipe.csv')!.reason).toMatch(/^a named pipe \(FIFO\): /);
    // The links themselves were set aside, unchanged; the FIFO too.
    const storedOf = (name: string) => join(h!.box.dataDir, 'failed', failed.get(name)!.storedAs);
    expect(readlinkSync(storedOf('link-out.csv'))).toBe(join(outside, 'outside.csv'));
    expect(readlinkSync(storedOf('link-dir.csv'))).toBe(join(outside, 'folder'));
    expect(lstatSync(storedOf('pipe.csv')).isFIFO()).toBe(true);

    const processed = reports(h.box.dataDir, 'processed');
    for (const name of quantities.keys()) {
      const r = processed.get(name)!;
      expect(r, JSON.stringify(name)).toMatchObject({ outcome: 'processed', rowsAccepted: 1 });
      expect(Buffer.byteLength(r.storedAs)).toBeLessThanOrEqual(255 - 26);
      expect(lstatSync(join(h.box.dataDir, 'processed', r.storedAs)).isFile()).toBe(true);
    }
    await waitUntil(
      () =>
        [...quantities.values()].every(
          ([sku, q]) => h!.sim.store.factoryStock(sku)?.stock_quantity === q,
        ),
      { timeoutMs: 15_000, message: 'the odd-named files to reach the portal' },
    );
    expect(daemon.lines.filter((l) => l.event === 'inbox.name_repaired')).toHaveLength(1);

    // The subfolder and its file were left alone; nothing else is left in inbox/.
    expect(readdirSync(inbox).filter((n) => !n.startsWith('.'))).toEqual(['sub']);
    expect(readdirSync(join(inbox, 'sub'))).toEqual(['inner.csv']);
    expect(
      daemon.lines.filter((l) => l.event === 'inbox.folder_ignored' && l.file === 'sub').length,
    ).toBeGreaterThanOrEqual(1);
    // Nothing the links point to reached the portal.
    expect(h.sim.store.factoryStock(seededSku(0))?.stock_quantity).not.toBe(4242);
    expect(h.sim.store.factoryStock(seededSku(1))?.stock_quantity).not.toBe(4243);
    expect(h.sim.store.factoryStock(seededSku(2))?.stock_quantity).not.toBe(4244);

    expect(await h.stop()).toBe(0);

    // Outside the data dir: no entry added, removed, moved or written; with relatime, not read.
    const after = stamps(outside, entries);
    if (tracksReads) expect(after).toEqual(stats);
    else expect(withoutAtime(after)).toEqual(withoutAtime(stats));
    expect(listTree(outside)).toEqual(entries);
    expect(contents(outside)).toEqual(before);
    // The outside path never shows up in what the daemon wrote (logs, reports).
    expect(daemon.output()).not.toContain(outside);
    for (const folder of ['processed', 'failed'] as const)
      for (const n of readdirSync(join(h.box.dataDir, folder)).filter((f) =>
        f.endsWith('.report.json'),
      ))
        expect(readFileSync(join(h.box.dataDir, folder, n), 'utf8')).not.toContain(outside);
  });
});
