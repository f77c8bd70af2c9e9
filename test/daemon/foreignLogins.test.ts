import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import type { LogLine } from '../helpers/daemonProcess.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { freePort } from '../setup/redis.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const json = (output: string) => JSON.parse(output.slice(output.indexOf('{')));

/** Another client logging in with the daemon's account: the portal invalidates the daemon's token. */
async function otherClientLogsIn(h: Harness): Promise<void> {
  const res = await fetch(`${h.sim.baseUrl}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'supplier@example.com', password: 'demo-password' }),
  });
  expect(res.status).toBe(200);
}

const metric = (text: string, name: string) => {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

describe('foreign logins through the running daemon', () => {
  it('counts token invalidations by another client and warns when they repeat', async () => {
    const port = await freePort();
    h = await startHarness(
      'foreign-login',
      {},
      { SHIPMENTS_POLL_CRON: '*/1 * * * * *', HTTP_PORT: String(port) },
    );
    const d = await h.start();
    const events = (e: string) => d.lines.filter((l) => l.event === e);
    /** A poll that went through after the n-th login: the daemon's token served a call. */
    const pollAfterLogin = (n: number) =>
      d.waitFor(
        (l: LogLine) =>
          l.event === 'shipments.polled' &&
          d.lines.indexOf(l) > d.lines.indexOf(events('api.login')[n - 1] ?? l),
        15_000,
        `a poll after login ${n}`,
      );
    await d.waitForEvent('api.login');
    await pollAfterLogin(1);

    await otherClientLogsIn(h);
    await d.waitFor((l) => l.event === 'api.token_invalidated' && l.servedCalls === true);
    await d.waitFor(() => events('api.login').length === 2, 15_000, 'the re-login');
    await pollAfterLogin(2);
    // Once is not yet "repeated": counted, not warned.
    expect(events('api.foreign_login')).toHaveLength(0);
    let s = json((await h.cli(['status', '--json'])).output);
    expect(s.foreignLogins.lastHour).toBe(1);

    await otherClientLogsIn(h);
    const warned = await d.waitForEvent('api.foreign_login', 15_000);
    expect(warned.level).toBe('warn');
    expect(warned.count).toBe(2);
    expect(warned.msg).toMatch(/2 times in the last hour: another client is logging in/);
    await d.waitFor(() => events('api.login').length === 3, 15_000, 'the second re-login');
    await pollAfterLogin(3);

    s = json((await h.cli(['status', '--json'])).output);
    expect(s.foreignLogins.lastHour).toBe(2);
    expect(
      Math.abs(
        Date.parse(s.foreignLogins.lastAt) -
          (typeof warned.time === 'number' ? warned.time : Date.parse(String(warned.time))),
      ),
    ).toBeLessThan(2000);
    expect(s.health.verdict).toBe('degraded');
    expect(s.health.reasons).toContain(
      'the portal invalidated our token 2 times in the last hour: another client is logging in with this account',
    );
    const text = (await h.cli(['status'])).output;
    expect(text).toMatch(
      /token\s+obtained .*; invalidated by another client's login 2 time\(s\) in the last hour, last \d\d:\d\d/,
    );
    // The metrics are read every 5 s: read now, as the next refresh would, they show it.
    await waitUntil(
      async () => {
        await h.runNow('metrics');
        return (
          metric(
            await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
            'supplier_sync_foreign_logins_last_hour',
          ) === 2
        );
      },
      { timeoutMs: 15_000, message: 'the foreign logins in /metrics' },
    );
    // Each invalidation cost exactly one login, and nothing else was refused for good.
    expect(events('api.login')).toHaveLength(3);
    expect(events('api.login_blocked')).toHaveLength(0);
  });
});
