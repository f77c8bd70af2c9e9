/**
 * The events a webhook is told besides failed files (#30, product contract "Notifications"):
 * a held file and the verdict turning to NEEDS A PERSON and back, invalid edits of the watched
 * settings files, repeated foreign logins. The real daemon in this process, a real receiver.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { type Receiver, startReceiver } from '../helpers/webhookReceiver.ts';

const SECRET = 'whsec-events-test-77c2';
let h: Harness | undefined;
let receiver: Receiver | undefined;
let dir: string | undefined;
afterEach(async () => {
  await h?.cleanup();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  h = undefined;
  receiver = undefined;
});

async function withReceiver(): Promise<{ r: Receiver; env: Record<string, string> }> {
  const r = await startReceiver(SECRET);
  receiver = r;
  dir = mkdtempSync(join(tmpdir(), 'notify-events-'));
  writeFileSync(join(dir, 'secret'), SECRET);
  return {
    r,
    env: { NOTIFY_WEBHOOK_URL: r.url, NOTIFY_WEBHOOK_SECRET_FILE: join(dir, 'secret') },
  };
}

const bodies = (r: Receiver, event: string) =>
  r
    .delivered()
    .map((x) => x.json)
    .filter((j) => j.event === event);

const keys = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('notified events', () => {
  it('a held file, the verdict turning to NEEDS A PERSON and back once it is rejected, invalid settings files', async () => {
    const { r, env } = await withReceiver();
    const rulesFile = join(dir!, 'rules.json');
    const profilesFile = join(dir!, 'profiles.json');
    writeFileSync(rulesFile, JSON.stringify({ rules: [] }));
    writeFileSync(profilesFile, JSON.stringify({ profiles: [] }));
    h = await startHarness('notify-events', {}, env);
    const d = await h.start({ STOCK_RULES_FILE: rulesFile, INBOX_PROFILES_FILE: profilesFile });

    // 60 keys on the portal, then a file that zeroes 55 of them: held.
    h.drop(
      'base.csv',
      factoryCsv(keys(0, 60).map((i) => [seededSku(i), 100 + i] as const)),
      new Date(Date.now() - 120_000),
    );
    await waitUntil(
      () =>
        keys(0, 60).every(
          (i) => h!.sim.store.factoryStock(seededSku(i))?.stock_quantity === 100 + i,
        ),
      { timeoutMs: 20_000, message: 'the base file on the portal' },
    );
    await h.waitForIdle();
    h.drop(
      'mass-zero.csv',
      factoryCsv(keys(0, 60).map((i) => [seededSku(i), i < 55 ? 0 : 100 + i] as const)),
      new Date(Date.now() - 60_000),
    );
    const held = await d.waitFor((l) => l.event === 'file.held' && l.file === 'mass-zero.csv');
    await h.runNow('notifications');
    await waitUntil(
      () => bodies(r, 'file.held').length === 1 && bodies(r, 'status.verdict').length === 1,
      {
        message: 'file.held and the verdict delivered',
      },
    );
    expect(bodies(r, 'file.held')[0]).toMatchObject({
      text: expect.stringMatching(
        new RegExp(
          `^Inbox file \`mass-zero\\.csv\` is held by the guard rails \\(it would set 55 of the 60 keys .*\\): release ${held.heldId} or reject ${held.heldId}\\.$`,
        ),
      ),
      details: { heldId: held.heldId, tripped: ['zero', 'drop'], outcome: 'held' },
    });
    expect(bodies(r, 'status.verdict')[0]).toMatchObject({
      text: expect.stringMatching(
        /^supplier-sync NEEDS A PERSON: the guard rails hold 1 stock file/,
      ),
      details: { verdict: 'needs a person', needsPerson: true },
    });

    // Rejected: nothing held, the verdict is back to healthy.
    expect((await h.cli(['reject', String(held.heldId)])).code).toBe(0);
    await h.runNow('notifications');
    await waitUntil(() => bodies(r, 'status.verdict').length === 2, {
      message: 'the verdict back',
    });
    expect(
      bodies(r, 'status.verdict').map((b) => [b.details.needsPerson, b.details.verdict]),
    ).toEqual([
      [true, 'needs a person'],
      [false, 'healthy'],
    ]);
    await h.runNow('notifications');
    expect(bodies(r, 'status.verdict')).toHaveLength(2); // told once each

    // Broken edits of both watched files, each read twice (as two looks 2 s apart would).
    writeFileSync(rulesFile, '{"rules": [{"sku": 1}]}');
    writeFileSync(profilesFile, '{"profiles": ');
    await h.runNow('settings-files');
    await h.runNow('settings-files');
    await d.waitForEvent('rules.invalid');
    await d.waitForEvent('profiles.invalid');
    await h.runNow('notifications');
    await waitUntil(
      () => bodies(r, 'rules.invalid').length === 1 && bodies(r, 'profiles.invalid').length === 1,
      { message: 'the invalid files told' },
    );
    expect(bodies(r, 'rules.invalid')[0]).toMatchObject({
      text: expect.stringMatching(
        /^STOCK_RULES_FILE `.*rules\.json` was edited and is invalid \(.+\); the last good stock rules stay in force\.$/,
      ),
      details: { setting: 'STOCK_RULES_FILE', file: rulesFile },
    });
    expect(bodies(r, 'profiles.invalid')[0]).toMatchObject({
      details: {
        setting: 'INBOX_PROFILES_FILE',
        file: profilesFile,
        problem: expect.stringMatching(/not valid JSON/),
      },
    });
    expect(r.received.every((x) => x.signatureOk)).toBe(true);
  });

  it('api.foreign_login when another client keeps logging in with the account', async () => {
    const { r, env } = await withReceiver();
    h = await startHarness('notify-foreign', {}, { ...env, SHIPMENTS_POLL_CRON: '*/1 * * * * *' });
    const d = await h.start();
    const otherClientLogsIn = async () => {
      const res = await fetch(`${h!.sim.baseUrl}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'supplier@example.com', password: 'demo-password' }),
      });
      expect(res.status).toBe(200);
    };
    const logins = () => d.lines.filter((l) => l.event === 'api.login').length;
    const pollAfter = (n: number) =>
      d.waitFor(
        (l) =>
          l.event === 'shipments.polled' &&
          d.lines.indexOf(l) > d.lines.findLastIndex((x) => x.event === 'api.login') &&
          logins() >= n,
        15_000,
        `a poll after login ${n}`,
      );
    await pollAfter(1);
    await otherClientLogsIn();
    await d.waitFor(() => logins() === 2, 15_000, 'the re-login');
    await pollAfter(2);
    await otherClientLogsIn();
    await d.waitForEvent('api.foreign_login', 15_000);
    await h.runNow('notifications');
    await waitUntil(() => bodies(r, 'api.foreign_login').length === 1, { message: 'told' });
    expect(bodies(r, 'api.foreign_login')[0]).toMatchObject({
      text: expect.stringMatching(
        /^The portal invalidated our token 2 times in the last hour: another client is logging in as `supplier@example\.com`/,
      ),
      details: { count: 2, account: 'supplier@example.com' },
    });
    expect(JSON.stringify(r.received.map((x) => x.json))).not.toContain('demo-password');
  });
});
