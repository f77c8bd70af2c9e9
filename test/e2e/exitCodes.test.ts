/**
 * The exit codes of the contract as a process's exit status (what a shell, a supervisor or the
 * image's HEALTHCHECK sees): one real child per code. What each command prints and returns for
 * every case is tested in-process (test/cli/commands.test.ts); SIGTERM → 0 of `run` in
 * test/e2e/daemonCrash.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { runCliToEnd } from '../helpers/daemonProcess.ts';

const env = () => ({ SYNC_DATA_DIR: mkdtempSync(join(tmpdir(), 'supplier-sync-cli-')) });

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe('exit codes (real child processes)', () => {
  it('0 for help, 2 for bad usage, 78 for a bad setting (one line), 1 at run time', async () => {
    const [help, usage, config, runConfig, failure] = await Promise.all([
      runCliToEnd(['--help'], env()),
      runCliToEnd(['failures', '--frob'], env()),
      runCliToEnd(['failures'], { ...env(), API_REQUESTS_PER_HOUR: 'lots' }),
      runCliToEnd(['run'], {
        ...env(),
        SUPPLIER_API_URL: 'https://portal.example.com/api/v1',
        SUPPLIER_EMAIL: 'ops@example.com',
        SUPPLIER_PASSWORD: 'pw-never-used',
        REDIS_URL: 'foo',
      }),
      runCliToEnd(['failures'], env()),
    ]);
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/^supplier-sync — /);
    expect(usage.code).toBe(2);
    expect(usage.output).toMatch(/--frob/);
    expect(config.code).toBe(78);
    expect(config.output.trim()).toBe(
      'supplier-sync: configuration error: API_REQUESTS_PER_HOUR: must be a whole number',
    );
    expect(runConfig.code).toBe(78);
    expect(runConfig.output.trim().split('\n')).toHaveLength(1);
    expect(runConfig.output).toMatch(/^supplier-sync: configuration error: REDIS_URL: /);
    expect(failure.code).toBe(1);
    expect(failure.output).toMatch(/no state.db/);
  });

  it('health as the image runs it: 0 beside a running daemon, 1 naming Redis when it does not answer', async () => {
    h = await startHarness('health-process');
    await h.start();
    await h.daemon!.waitForEvent('inbox.watching');
    const [healthy, noRedis] = await Promise.all([
      runCliToEnd(['health'], h.env),
      runCliToEnd(['health'], { ...h.env, REDIS_URL: 'redis://127.0.0.1:1' }),
    ]);
    expect(healthy.code, healthy.output).toBe(0);
    expect(healthy.output.trim()).toBe('healthy');
    expect(noRedis.code).toBe(1);
    expect(noRedis.output).toMatch(/^unhealthy: redis: /);
  });
});
