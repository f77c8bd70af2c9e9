/**
 * One writer per data dir (issue #28.6), as processes: a daemon started on a data dir another
 * daemon holds exits 78 naming the holder; once the holder stops, a daemon starts on it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { CLI, NODE, runCliToEnd } from '../helpers/daemonProcess.ts';

/** `unshare --pid` works here (root, or user namespaces allowed): another container's view. */
const pidNamespaces = spawnSync('unshare', ['--pid', '--fork', 'true']).status === 0;

/** A CLI command in a PID namespace of its own (its pid 1 or 2: a process of another container). */
async function inOtherPidNamespace(args: string[], env: Record<string, string>) {
  const child = spawn('unshare', ['--pid', '--fork', NODE, CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => {
    output += String(c);
  });
  child.stderr.on('data', (c) => {
    output += String(c);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, output };
}

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

  it.skipIf(!pidNamespaces)(
    'across PID namespaces (another container on the same volume): a second daemon exits 78, and a command is done by the running daemon',
    async () => {
      h = await startHarness('writer-lock-ns');
      const d = await h.start();

      const second = await inOtherPidNamespace(['run'], h.env);
      expect(second.code, second.output).toBe(78);
      expect(second.output).toMatch(
        /is in use: the daemon \(pid \d+ on host .*\) holds its writer lock/,
      );

      const paused = await inOtherPidNamespace(
        ['pause', '--reason', 'from another container'],
        h.env,
      );
      expect(paused.code, paused.output).toBe(0);
      expect(d.lines.find((l) => l.event === 'sync.paused')).toMatchObject({
        reason: 'from another container',
      });
      expect(d.lines.find((l) => l.event === 'operator.request')).toMatchObject({
        action: 'pause',
      });
    },
  );
});
