/**
 * A start on a full disk (#40 point 2), as a process: SYNC_DATA_DIR on a real small disk (a
 * tmpfs) that a daemon ran on, then filled. The review saw `run` exit 1 with "database or disk
 * is full", naming no path, so a liveness probe restarted it in a loop that could not help. Now it
 * exits 1 with one line naming the path and what is full, and `health --live` does not pretend a
 * daemon answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { runCliToEnd } from '../helpers/daemonProcess.ts';
import {
  canMountSmallDisk,
  mountSmallDisk,
  SMALL_DISK_SKIPPED,
  type SmallDisk,
} from '../helpers/smallDisk.ts';

let h: Harness | undefined;
let disk: SmallDisk | undefined;
afterEach(async () => {
  await h?.stop();
  disk?.unmount();
  await h?.cleanup();
  h = undefined;
  disk = undefined;
});

/** The lines of a process's output that are not JSON log lines: what it wrote to stderr. */
const plainLines = (output: string) =>
  output.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{'));

describe.skipIf(!canMountSmallDisk)(`a start on a full disk${SMALL_DISK_SKIPPED}`, () => {
  it('exits 1 with one line naming the path and what is full; health --live says no daemon answers', async () => {
    h = await startHarness('disk-start', { products: 20 });
    const dataDir = h.box.dataDir;
    disk = mountSmallDisk(dataDir, 8 * 1024 * 1024);
    // A daemon ran on this data dir, and stopped; then the disk filled up.
    const d = await h.start();
    await d.waitForEvent('inbox.watching');
    expect(await h.stop()).toBe(0);
    disk.fill();

    const started = await runCliToEnd(['run'], h.env);
    expect(started.code, started.output).toBe(1);
    const lines = plainLines(started.output);
    expect(lines, started.output).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^supplier-sync run: the disk holding ${dataDir} is full \\([\\d.]+ (bytes|KiB) free\\): state\\.db cannot be written, the daemon cannot start; free space there, then start again$`,
      ),
    );
    expect(started.lines.find((l) => l.event === 'disk.full')).toMatchObject({
      level: 'error',
      path: dataDir,
      freeBytes: expect.any(Number),
    });

    // No daemon runs: not live (a restart is what a stopped daemon needs), and not ready.
    const [live, ready] = await Promise.all([
      runCliToEnd(['health', '--live'], h.env),
      runCliToEnd(['health', '--json'], h.env),
    ]);
    expect(live.code, live.output).toBe(1);
    expect(live.output).toMatch(
      /^not live: no process holds the data dir's writer lock: the daemon is not running$/m,
    );
    expect(ready.code, ready.output).toBe(1);
    const report = JSON.parse(ready.output.split('\n').find((l) => l.startsWith('{"healthy"'))!);
    expect(report.disk).toMatchObject({ path: dataDir, full: true });
    // status cannot open state.db here (SQLite cannot make its shared-memory file): it says why.
    const status = await h.cli(['status']);
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(
      new RegExp(
        `^supplier-sync status: the disk holding ${dataDir} is full \\(.+ free\\): state\\.db cannot be opened \\(.+\\); free space there\n$`,
      ),
    );

    // Space back: it starts.
    disk.free();
    const again = await h.start();
    await again.waitForEvent('daemon.started');
  });
});
