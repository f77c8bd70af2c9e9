/**
 * The hostile inputs of issue #28 (points 2 and 3) on the real daemon, as a child process run
 * with the node flags it runs with in production (src/cli/nodeFlags.ts): one file of each
 * format that is small on disk or cheap to write and huge in memory for a careless reader
 * (test/helpers/hostileFiles.ts, at half the review's sizes). Each must land in failed/ with a
 * bounded report, the daemon must stay alive within 300 MiB (its VmHWM, the peak RSS of the whole
 * run), and a good file dropped after them must be applied. Point 1 (a file that crashes the
 * daemon) is test/e2e/crashLoop.test.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { DAEMON_NODE_FLAGS } from '../../src/cli/nodeFlags.ts';
import { factoryCsv, seededSku } from '../helpers/daemonHarness.ts';
import { hostileFiles } from '../helpers/hostileFiles.ts';
import { type ProcessHarness, startProcessHarness } from '../helpers/processHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

const RSS_LIMIT_MIB = 300;
const REPORT_MAX = 512 * 1024;

let h: ProcessHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** The process's peak RSS so far (VmHWM), MiB. */
function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmHWM for ${pid}`);
  return Number(m[1]) / 1024;
}

it.skipIf(!existsSync('/proc/self/status'))(
  'meets a hostile file of each format: each in failed/ with a small report, the daemon alive within 300 MiB, a good file after them applied',
  { timeout: 300_000 },
  async () => {
    h = await startProcessHarness(
      'hostile',
      { products: 50 },
      { NODE_OPTIONS: DAEMON_NODE_FLAGS.join(' ') },
    );
    const d = await h.start();
    const pid = d.child.pid!;
    const files = hostileFiles(0.5);
    const peaks: string[] = [];
    for (const f of files) {
      f.write(join(h.box.dataDir, 'inbox', f.name));
      const done = await d.waitFor(
        (l) =>
          (l.event === 'file.failed' || l.event === 'file.processed') &&
          (l.file === f.name || l.storedAs === f.name),
        120_000,
        `${f.name} (${f.what}) handled`,
      );
      expect(done.event, `${f.name}: ${String(done.reason)}`).toBe('file.failed');
      const peak = peakRssMiB(pid);
      peaks.push(`${f.name} ${peak.toFixed(0)}`);
      expect(peak, `peak RSS after ${f.name} (so far: ${peaks.join(', ')} MiB)`).toBeLessThan(
        RSS_LIMIT_MIB,
      );
    }

    // Every hostile file is in failed/, each with a report that is small and names why.
    const failedDir = join(h.box.dataDir, 'failed');
    const inFailed = readdirSync(failedDir);
    for (const f of files) {
      const stored = inFailed.find((n) => n.endsWith(`-${f.name}`));
      expect(stored, `${f.name} in failed/`).toBeDefined();
      const reportPath = join(failedDir, `${stored}.report.json`);
      expect(statSync(reportPath).size, `${f.name}'s report`).toBeLessThan(REPORT_MAX);
      const report = JSON.parse(readFileSync(reportPath, 'utf8'));
      expect(report).toMatchObject({ file: f.name, outcome: 'failed' });
      expect(typeof report.reason).toBe('string');
      expect(report.rejected.length).toBeLessThanOrEqual(1000);
      expect(report.rejected.length + report.rejectedOmitted).toBe(report.rowsRejected);
    }
    expect(readdirSync(join(h.box.dataDir, 'inbox')).filter((n) => !n.startsWith('.'))).toEqual([]);

    // Alive, and a good file after them is applied.
    h.drop('good.csv', factoryCsv([[seededSku(3), 321]]));
    await waitUntil(() => h!.sim.store.factoryStock(seededSku(3))?.stock_quantity === 321, {
      timeoutMs: 60_000,
      message: 'the good file applied after the hostile ones',
    });
    expect(d.child.exitCode).toBeNull();
    expect(d.lines.filter((l) => l.event === 'file.attempt_failed')).toEqual([]);
    const peak = peakRssMiB(pid);
    console.log(
      `hostileInputs: daemon peak RSS ${peak.toFixed(0)} MiB over ${files.length} files (${peaks.join(', ')})`,
    );
    expect(peak).toBeLessThan(RSS_LIMIT_MIB);
    expect(await h.stop()).toBe(0);
  },
);
