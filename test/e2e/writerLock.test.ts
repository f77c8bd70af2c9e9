/**
 * One writer per data dir (issue #28.6), as processes: a daemon started on a data dir another
 * daemon holds exits 78 naming the holder; once the holder stops, a daemon starts on it.
 */
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { runCliToEnd } from '../helpers/daemonProcess.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe('the writer lock on the data dir', () => {
  it('a second daemon on the same data dir exits 78 naming the holder (pid, host, since); after the holder stops one starts', async () => {
    h = await startHarness('writer-lock');
    const before = Date.now();
    await h.start();

    const second = await runCliToEnd(['run'], h.env);
    expect(second.code, second.output).toBe(78);
    const message = second.output
      .trim()
      .split('\n')
      .find((l) => l.startsWith('supplier-sync: configuration error:'));
    expect(message, second.output).toMatch(
      new RegExp(
        `^supplier-sync: configuration error: SYNC_DATA_DIR: .* is in use: the daemon \\(pid ${process.pid} on host ${hostname()}, since (\\S+)\\) holds its writer lock`,
      ),
    );
    const since = Date.parse(/since (\S+)\)/.exec(message!)![1]!);
    expect(since).toBeGreaterThanOrEqual(before - 1000);
    expect(since).toBeLessThanOrEqual(Date.now());
    // The holder went on undisturbed.
    expect(h.daemon!.lines.filter((l) => l.event === 'daemon.stopping')).toEqual([]);

    // Stopped: the lock is let go, and a daemon starts on the data dir.
    expect(await h.stop()).toBe(0);
    const again = await h.start();
    await again.waitForEvent('daemon.started');
  });
});
