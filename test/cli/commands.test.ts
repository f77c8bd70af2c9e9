/**
 * The command line in this process: `main(argv, …)` as the installed command calls it (argument
 * parsing, configuration, the exit code it returns and what it prints). That the process exits
 * with that code is shown once per code by test/e2e/exitCodes.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.ts';
import { runCliInProcess } from '../helpers/cliInProcess.ts';

const env = () => ({ SYNC_DATA_DIR: mkdtempSync(join(tmpdir(), 'supplier-sync-cli-')) });

describe('command line (main, in-process)', () => {
  it('prints help for the tool and for every command, exit 0', async () => {
    const top = await runCliInProcess(['--help'], env());
    expect(top.code).toBe(0);
    for (const c of commands) expect(top.output).toContain(c.name);
    for (const c of commands) {
      const r = await runCliInProcess([c.name, '--help'], env());
      expect(r.code, c.name).toBe(0);
      expect(r.stdout).toContain(`supplier-sync ${c.name}`);
      expect(r.stderr, c.name).toBe('');
    }
    // The list's names are the commands' own.
    for (const c of commands) expect((await c.load()).name).toBe(c.name);
    // No command at all: the help, as a usage error.
    expect((await runCliInProcess([], env())).code).toBe(2);
  });

  it('exits 2 on an unknown command or option', async () => {
    const unknown = await runCliInProcess(['frobnicate'], env());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^supplier-sync: unknown command 'frobnicate'/);
    const r = await runCliInProcess(['failures', '--frob'], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--frob/);
  });

  it('exits 78 with one line naming the key of a bad setting', async () => {
    const bad = await runCliInProcess(['failures'], { ...env(), API_REQUESTS_PER_HOUR: 'lots' });
    expect(bad.code).toBe(78);
    expect(bad.output).toBe(
      'supplier-sync: configuration error: API_REQUESTS_PER_HOUR: must be a whole number\n',
    );
    const flag = await runCliInProcess(['failures', '--log-level', 'loud'], env());
    expect(flag.code).toBe(78);
    expect(flag.output).toMatch(/LOG_LEVEL/);
    const unknown = await runCliInProcess(['failures'], { ...env(), SYNC_DATADIR: '/x' });
    expect(unknown.code).toBe(78);
    expect(unknown.output).toMatch(/SYNC_DATADIR: unknown setting/);
  });

  it('refuses a configuration that cannot work at the start of run: exit 78, one line naming the key', async () => {
    const base = {
      SUPPLIER_API_URL: 'https://portal.example.com/api/v1',
      SUPPLIER_EMAIL: 'ops@example.com',
      SUPPLIER_PASSWORD: 'pw-never-used',
    };
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ REDIS_URL: 'foo' }, /^supplier-sync: configuration error: REDIS_URL: /],
      [
        { API_BACKOFF_BASE_MS: '90000', API_BACKOFF_MAX_MS: '60000' },
        /^supplier-sync: configuration error: API_BACKOFF_BASE_MS: /,
      ],
      [
        { SUPPLIER_API_URL: 'http://portal.example.com/api/v1' },
        /^supplier-sync: configuration error: SUPPLIER_API_URL: .*SUPPLIER_API_INSECURE/,
      ],
      [{ HTTP_HOST: 'not a host' }, /^supplier-sync: configuration error: HTTP_HOST: /],
    ];
    for (const [bad, want] of cases) {
      const r = await runCliInProcess(['run'], { ...env(), ...base, ...bad });
      expect(r.code, JSON.stringify(bad)).toBe(78);
      const lines = r.output.trim().split('\n');
      expect(lines, JSON.stringify(bad)).toHaveLength(1);
      expect(lines[0]).toMatch(want);
    }
  });

  it('exits 1 at run time when there is no state to read', async () => {
    const r = await runCliInProcess(['failures'], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no state.db/);
  });
});
