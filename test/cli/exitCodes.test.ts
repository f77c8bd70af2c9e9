import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.ts';
import { runCliToEnd } from '../helpers/daemonProcess.ts';

const env = () => ({ SYNC_DATA_DIR: mkdtempSync(join(tmpdir(), 'supplier-sync-cli-')) });

describe('command line (real child processes)', () => {
  it('prints help for the tool and for every command, exit 0', async () => {
    const top = await runCliToEnd(['--help'], env());
    expect(top.code).toBe(0);
    for (const c of commands) expect(top.output).toContain(c.name);
    // Four at a time: a child per command all at once starves a loaded machine past the timeout.
    const each: Awaited<ReturnType<typeof runCliToEnd>>[] = [];
    for (let i = 0; i < commands.length; i += 4) {
      const group = commands.slice(i, i + 4);
      each.push(...(await Promise.all(group.map((c) => runCliToEnd([c.name, '--help'], env())))));
    }
    each.forEach((r, i) => {
      expect(r.code, commands[i]!.name).toBe(0);
      expect(r.output).toContain(`supplier-sync ${commands[i]!.name}`);
    });
  }, 120_000);

  it('exits 2 on an unknown command or option', async () => {
    expect((await runCliToEnd(['frobnicate'], env())).code).toBe(2);
    const r = await runCliToEnd(['failures', '--frob'], env());
    expect(r.code).toBe(2);
    expect(r.output).toMatch(/--frob/);
  });

  it('exits 78 with one line naming the key of a bad setting', async () => {
    const bad = await runCliToEnd(['failures'], { ...env(), API_REQUESTS_PER_HOUR: 'lots' });
    expect(bad.code).toBe(78);
    expect(bad.output.trim()).toBe(
      'supplier-sync: configuration error: API_REQUESTS_PER_HOUR: must be a whole number',
    );
    const flag = await runCliToEnd(['failures', '--log-level', 'loud'], env());
    expect(flag.code).toBe(78);
    expect(flag.output).toMatch(/LOG_LEVEL/);
    const unknown = await runCliToEnd(['failures'], { ...env(), SYNC_DATADIR: '/x' });
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
    const runs = await Promise.all(
      cases.map(([bad]) => runCliToEnd(['run'], { ...env(), ...base, ...bad })),
    );
    runs.forEach((r, i) => {
      const [bad, want] = cases[i]!;
      expect(r.code, JSON.stringify(bad)).toBe(78);
      const lines = r.output.trim().split('\n');
      expect(lines, JSON.stringify(bad)).toHaveLength(1);
      expect(lines[0]).toMatch(want);
    });
  });

  it('exits 1 at run time when there is no state to read', async () => {
    const r = await runCliToEnd(['failures'], env());
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/no state.db/);
  });
});
