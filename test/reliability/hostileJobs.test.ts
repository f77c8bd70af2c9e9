/**
 * Jobs carry names, not paths (#13 point 3): jobs written into Redis by hand — as anyone who can
 * reach the Redis can — name state.db, files elsewhere in the data dir and outside it, by path
 * and by names that are paths. The real daemon refuses every name that is not a plain file name
 * (one `job.refused` line each), reads a plain name only under inbox/, and nothing outside inbox/
 * is moved, read into the portal or changed.
 */
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { redisConnection } from '../../src/jobs/connection.ts';
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

/** Size, inode and mtime of a path (a move or a write changes one of them). */
const stamp = (path: string) => {
  const st = lstatSync(path);
  return `${st.ino}:${st.size}:${st.mtimeMs}`;
};

describe('hostile jobs', { timeout: 90_000 }, () => {
  it('refuses every ingest job whose name is not a plain file name; nothing outside inbox/ moves', async () => {
    h = await startHarness('hostile-jobs');
    const dataDir = h.box.dataDir;
    outside = mkdtempSync(join(tmpdir(), 'supplier-sync-outside-'));
    const victim = join(outside, 'victim.csv');
    writeFileSync(victim, factoryCsv([[seededSku(1), 901]]));
    const inDataDir = join(dataDir, 'beside-inbox.csv');
    writeFileSync(inDataDir, factoryCsv([[seededSku(2), 902]]));
    await h.start();
    const stateDb = join(dataDir, 'state.db');
    const before = { stateDb: stamp(stateDb), victim: stamp(victim), inDataDir: stamp(inDataDir) };

    const refused: Array<Record<string, unknown>> = [
      { path: stateDb, name: '../state.db' },
      { path: victim, name: victim },
      { name: '../beside-inbox.csv' },
      { name: `../../${outside.split('/').pop()}/victim.csv` },
      { name: '/etc/passwd' },
      { name: 'sub/x.csv' },
      { name: '..' },
      { name: '.' },
      { name: '' },
      { name: 'nul\u0000.csv' },
      { name: 'x'.repeat(256) },
      { name: 42 },
      { path: stateDb },
      {},
    ];
    // Plain names that are not in inbox/: looked for there only, whatever the path says.
    const plain: Array<Record<string, unknown>> = [
      { path: stateDb, name: 'state.db' },
      { path: victim, name: 'victim.csv' },
      { path: inDataDir, name: 'beside-inbox.csv' },
    ];

    const connection = redisConnection(h.box.redisUrl);
    const queue = new Queue('ingest', { connection, prefix: h.box.prefix });
    try {
      const jobs = await queue.addBulk(
        [...refused, ...plain].map((data, i) => ({
          name: 'ingest',
          // biome-ignore lint/suspicious/noExplicitAny: a payload of any shape, as a hand could write it
          data: data as any,
          opts: { jobId: `by-hand-${i}`, attempts: 1 },
        })),
      );
      await waitUntil(
        async () => {
          const states = await Promise.all(jobs.map((j) => queue.getJobState(j.id!)));
          return states.every((s) => s === 'completed' || s === 'failed');
        },
        { timeoutMs: 30_000, message: 'every hand-written job handled' },
      );
    } finally {
      await queue.close();
      connection.disconnect();
    }

    const d = h.daemon!;
    const refusals = d.lines.filter((l) => l.event === 'job.refused');
    expect(refusals).toHaveLength(refused.length);
    for (const r of refusals) {
      expect(r.queue).toBe('ingest');
      expect(r.level).toBe('warn');
      expect(String(r.problem)).not.toBe('');
    }
    // Nothing outside inbox/ moved, was changed or reached the portal.
    expect(stamp(stateDb)).toBe(before.stateDb);
    expect(stamp(victim)).toBe(before.victim);
    expect(stamp(inDataDir)).toBe(before.inDataDir);
    expect(readdirSync(join(dataDir, 'processed'))).toEqual([]);
    expect(readdirSync(join(dataDir, 'failed'))).toEqual([]);
    expect(d.lines.filter((l) => String(l.event).startsWith('file.'))).toEqual([]);
    expect(h.sim.store.factoryStock(seededSku(1))?.stock_quantity).not.toBe(901);
    expect(h.sim.store.factoryStock(seededSku(2))?.stock_quantity).not.toBe(902);

    // The daemon goes on: a file dropped into inbox/ is processed as usual.
    h.drop('after.csv', factoryCsv([[seededSku(3), 903]]));
    await waitUntil(() => h!.sim.store.factoryStock(seededSku(3))?.stock_quantity === 903, {
      timeoutMs: 20_000,
      message: 'a real file after the hostile jobs',
    });
    expect(readFileSync(victim, 'utf8')).toBe(factoryCsv([[seededSku(1), 901]]));
    expect(await h.stop()).toBe(0);
  });
});
