/**
 * Notifications by webhook (#30, product contract "Notifications"): the real daemon in this
 * process (harness), a real HTTP receiver on 127.0.0.1 that checks every signature, and the
 * daemon's clock moved by the test for the back-off and the 24 h limit.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { type Receiver, startReceiver } from '../helpers/webhookReceiver.ts';
import { freePort } from '../setup/redis.ts';

const SECRET = 'whsec-notify-test-3f9a1c';
let h: Harness | undefined;
let receiver: Receiver | undefined;
let secretDir: string | undefined;
afterEach(async () => {
  await h?.cleanup();
  await receiver?.close();
  if (secretDir) rmSync(secretDir, { recursive: true, force: true });
  h = undefined;
  receiver = undefined;
});

/** A secret file, and the settings that turn notifications on towards the receiver. */
function notifyEnv(r: Receiver, extra: Record<string, string> = {}): Record<string, string> {
  secretDir = mkdtempSync(join(tmpdir(), 'notify-secret-'));
  const file = join(secretDir, 'webhook-secret');
  writeFileSync(file, `${SECRET}\n`);
  return {
    NOTIFY_WEBHOOK_URL: r.url,
    NOTIFY_WEBHOOK_SECRET_FILE: file,
    NOTIFY_RETRY_BASE_MS: '60000',
    NOTIFY_RETRY_MAX_MS: '3600000',
    ...extra,
  };
}

const MINUTE = 60_000;
/** A file no reader knows: fails whole. */
const unknownFile = 'colour,size\nred,XL\n';
const ofEvent = (r: Receiver, event: string) =>
  r.delivered().filter((x) => x.json?.event === event);

describe('notifications by webhook', () => {
  it('delivers through a failing receiver, a daemon restart and a receiver that went away: nothing lost, nothing doubled, in order per kind, signed', async () => {
    receiver = await startReceiver(SECRET);
    receiver.status = 500;
    const port = await freePort();
    h = await startHarness(
      'notify',
      { products: 50 },
      notifyEnv(receiver, { HTTP_PORT: String(port) }),
    );
    const d = await h.start();

    h.drop('a-unknown.csv', unknownFile);
    await d.waitFor((l) => l.event === 'file.failed' && l.file === 'a-unknown.csv');
    h.drop('b-some-bad.csv', `sku,stock_quantity\n${seededSku(1)},7\n${seededSku(2)},abc\n`);
    await d.waitFor((l) => l.event === 'file.processed' && l.file === 'b-some-bad.csv');
    await h.runNow('notifications');
    // Each kind's first notification was tried once and refused (500).
    await d.waitFor((l) => l.event === 'notify.failed' && l.notification === 'file.failed');
    await d.waitFor((l) => l.event === 'notify.failed' && l.notification === 'file.rows_rejected');
    expect(receiver.received.map((x) => [x.json.event, x.status]).sort()).toEqual([
      ['file.failed', 500],
      ['file.rows_rejected', 500],
    ]);

    // A second failed file waits behind the first of its kind; nothing is due before the back-off.
    h.drop('c-unknown.csv', unknownFile);
    await d.waitFor((l) => l.event === 'file.failed' && l.file === 'c-unknown.csv');
    await h.runNow('notifications');
    expect(receiver.received).toHaveLength(2);
    const status = await h.cli(['status']);
    expect(status.stdout).toMatch(/^notifications +3 waiting to be delivered/m);
    expect((await h.statusJson()).notifications).toMatchObject({ queued: 3 });

    // The daemon stops; the receiver goes away; the daemon starts again and finds it gone.
    expect(await h.stop()).toBe(0);
    await receiver.close();
    const d2 = await h.start();
    h.clock.advance(MINUTE + 1000);
    await h.runNow('notifications');
    await d2.waitFor(
      (l) => l.event === 'notify.failed' && /ECONNREFUSED/.test(String(l.error)),
      15_000,
      'a refused connection',
    );

    // It comes back, answering 200: everything arrives once, each kind in order.
    receiver.status = 200;
    await receiver.listen();
    h.clock.advance(10 * MINUTE);
    await h.runNow('notifications');
    await waitUntil(() => receiver!.delivered().length === 3, {
      message: 'three notifications delivered',
    });
    const r = receiver;
    expect(ofEvent(r, 'file.failed').map((x) => x.json.details.file)).toEqual([
      'a-unknown.csv',
      'c-unknown.csv',
    ]);
    expect(ofEvent(r, 'file.rows_rejected').map((x) => x.json.details.file)).toEqual([
      'b-some-bad.csv',
    ]);
    const ids = r.delivered().map((x) => x.json.id);
    expect(new Set(ids).size).toBe(3);
    // Every attempt carried the same id and body as its delivery, signed with the secret.
    for (const x of r.received) {
      expect(x.signatureOk).toBe(true);
      expect(ids).toContain(x.json.id);
      expect(x.headers['x-supplier-sync-delivery']).toBe(x.json.id);
      expect(x.headers['x-supplier-sync-event']).toBe(x.json.event);
      expect(x.body).not.toContain(SECRET);
      expect(x.body).not.toContain('demo-password');
    }
    const failed = ofEvent(r, 'file.failed')[0]!.json;
    expect(failed).toMatchObject({
      event: 'file.failed',
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      text: expect.stringMatching(/^Inbox file `a-unknown\.csv` failed: /),
      details: {
        file: 'a-unknown.csv',
        outcome: 'failed',
        report: expect.stringMatching(/^failed\//),
      },
    });
    expect(ofEvent(r, 'file.rows_rejected')[0]!.json.details).toMatchObject({
      rowsRead: 2,
      rowsRejected: 1,
    });

    // A signature made with another secret does not pass the receiver's check.
    const { verify } = await import('../helpers/webhookReceiver.ts');
    expect(
      verify(
        r.received[0]!.body,
        r.received[0]!.headers['x-supplier-sync-signature'] as string,
        'other',
      ),
    ).toBe(false);

    // Nothing waits now: the status has no notifications row; the metrics count the outcomes.
    await h.runNow('notifications');
    expect((await h.cli(['status'])).stdout).not.toMatch(/^notifications/m);
    expect((await h.statusJson()).notifications).toEqual({ queued: 0, oldestAt: null });
    await waitUntil(
      async () => {
        await h!.runNow('metrics'); // read now, as its timer would next
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return (
          /supplier_sync_notifications_delivered_total\{event="file.failed"\} 2/.test(text) &&
          /supplier_sync_notifications_delivered_total\{event="file.rows_rejected"\} 1/.test(
            text,
          ) &&
          /supplier_sync_notification_attempts_failed_total\{event="file.failed"\} 2/.test(text) &&
          /supplier_sync_notifications_queued 0/.test(text)
        );
      },
      { timeoutMs: 20_000, message: 'the notification counts in /metrics' },
    );
    // The secret never reached the log.
    expect(d2.output()).not.toContain(SECRET);
    expect(d.output()).not.toContain(SECRET);
  });

  it('backs off, doubling, then drops a notification after 24 h with a log line; the next of its kind still goes', async () => {
    receiver = await startReceiver(SECRET);
    receiver.status = 503;
    const port = await freePort();
    h = await startHarness(
      'notify-drop',
      { products: 20 },
      notifyEnv(receiver, { HTTP_PORT: String(port) }),
    );
    const d = await h.start();
    h.drop('x-unknown.csv', unknownFile);
    await d.waitFor((l) => l.event === 'file.failed' && l.file === 'x-unknown.csv');
    const attempts = () => receiver!.received.length;

    await h.runNow('notifications');
    expect(attempts()).toBe(1);
    await h.runNow('notifications');
    expect(attempts()).toBe(1); // not due for a minute
    h.clock.advance(MINUTE - 2000);
    await h.runNow('notifications');
    expect(attempts()).toBe(1);
    h.clock.advance(3000);
    await h.runNow('notifications');
    expect(attempts()).toBe(2); // then two minutes
    h.clock.advance(MINUTE + 1000);
    await h.runNow('notifications');
    expect(attempts()).toBe(2);
    h.clock.advance(MINUTE);
    await h.runNow('notifications');
    expect(attempts()).toBe(3);

    // A second one waits behind it; a day on, the first gets its last attempt and both go.
    h.drop('x2-unknown.csv', unknownFile);
    await d.waitFor((l) => l.event === 'file.failed' && l.file === 'x2-unknown.csv');
    h.clock.advance(24 * 60 * MINUTE);
    await h.runNow('notifications');
    const dropped = await d.waitFor((l) => l.event === 'notify.dropped');
    expect(dropped).toMatchObject({
      notification: 'file.failed',
      attempts: 4,
      error: 'HTTP 503',
      alsoDropped: 1,
    });
    expect(attempts()).toBe(4);
    expect((await h.statusJson()).notifications).toEqual({ queued: 0, oldestAt: null });
    await waitUntil(
      async () => {
        await h!.runNow('metrics'); // read now, as its timer would next
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return (
          /supplier_sync_notifications_dropped_total\{event="file.failed"\} 2/.test(text) &&
          /supplier_sync_notification_attempts_failed_total\{event="file.failed"\} 4/.test(text)
        );
      },
      { timeoutMs: 20_000, message: 'the drop in /metrics' },
    );

    // The kind is not stuck: the next failed file is told once the receiver takes it.
    receiver.status = 204;
    h.drop('y-unknown.csv', unknownFile);
    await d.waitFor((l) => l.event === 'file.failed' && l.file === 'y-unknown.csv');
    await h.runNow('notifications');
    await waitUntil(() => receiver!.delivered().length === 1, { message: 'the next delivered' });
    expect(receiver.delivered()[0]!.json.details.file).toBe('y-unknown.csv');
  });

  it('a receiver that never answers delays no stock work, and the daemon still stops at once', async () => {
    receiver = await startReceiver(SECRET);
    receiver.hang = true;
    h = await startHarness(
      'notify-hang',
      { products: 20 },
      notifyEnv(receiver, { NOTIFY_TIMEOUT_MS: '300000' }),
    );
    const d = await h.start();
    h.drop('a-unknown.csv', unknownFile);
    await d.waitFor((l) => l.event === 'file.failed' && l.file === 'a-unknown.csv');
    void h.runNow('notifications');
    await waitUntil(() => receiver!.received.length === 1, { message: 'the POST under way' });

    // The POST hangs (for up to 5 min); files are still read and pushed meanwhile.
    h.drop('stock.csv', factoryCsv([[seededSku(3), 33]]));
    h.drop('b-unknown.csv', unknownFile);
    await waitUntil(() => h!.sim.store.factoryStock(seededSku(3))?.stock_quantity === 33, {
      message: 'the push while the webhook hangs',
    });
    await d.waitFor((l) => l.event === 'file.failed' && l.file === 'b-unknown.csv');
    expect(d.lines.some((l) => l.event === 'notify.delivered' || l.event === 'notify.failed')).toBe(
      false,
    );

    // Another kind is not held back by the hanging one: the receiver answers new POSTs again.
    receiver.hang = false;
    h.drop('c-some-bad.csv', `sku,stock_quantity\n${seededSku(4)},4\n${seededSku(5)},x\n`);
    await waitUntil(() => ofEvent(receiver!, 'file.rows_rejected').length === 1, {
      message: 'file.rows_rejected delivered beside the hanging file.failed',
    });
    expect(ofEvent(receiver, 'file.failed')).toEqual([]);

    // A graceful stop gives the claimed notification back untried; the next start sends both.
    const stopped = Date.now();
    expect(await h.stop()).toBe(0);
    expect(Date.now() - stopped).toBeLessThan(8000);
    const d2 = await h.start();
    await h.runNow('notifications');
    await waitUntil(() => ofEvent(receiver!, 'file.failed').length === 2, {
      message: 'both delivered',
    });
    expect(ofEvent(receiver, 'file.failed').map((x) => x.json.details.file)).toEqual([
      'a-unknown.csv',
      'b-unknown.csv',
    ]);
    expect(d2.lines.filter((l) => l.event === 'notify.failed')).toEqual([]);
  });

  it('turned off, a restart discards what was left undelivered, saying so', async () => {
    receiver = await startReceiver(SECRET);
    receiver.status = 500;
    h = await startHarness('notify-off', { products: 20 }, notifyEnv(receiver));
    const d = await h.start();
    h.drop('a-unknown.csv', unknownFile);
    await d.waitFor((l) => l.event === 'file.failed' && l.file === 'a-unknown.csv');
    expect((await h.statusJson()).notifications.queued).toBe(1);
    expect(await h.stop()).toBe(0);

    const off = await h.start({ NOTIFY_WEBHOOK_URL: '' });
    expect(await off.waitForEvent('notify.discarded')).toMatchObject({ count: 1 });
    expect((await h.statusJson()).notifications).toEqual({ queued: 0, oldestAt: null });
    h.drop('b-unknown.csv', unknownFile);
    await off.waitFor((l) => l.event === 'file.failed' && l.file === 'b-unknown.csv');
    expect((await h.statusJson()).notifications.queued).toBe(0);
  });

  it('names in text are quoted so that a chat tool shows them as text: no mention, no link', async () => {
    receiver = await startReceiver(SECRET);
    h = await startHarness('notify-names', { products: 20 }, notifyEnv(receiver));
    const d = await h.start();
    // A mention of everyone in Slack and Mattermost, Mattermost's own, a link, code markup.
    const name = '<!channel> @here <mailto:a@evil.example|click> `x`\x1b[2J.csv';
    h.drop(name, 'colour,@all size,<!here>\nred,XL,1\n');
    await d.waitFor((l) => l.event === 'file.failed' && l.file === name);
    await h.runNow('notifications');
    await waitUntil(() => receiver!.delivered().length === 1, { message: 'delivered' });
    const told = receiver.delivered()[0]!.json;
    expect(told.text).toMatch(
      /^Inbox file `&lt;!channel&gt; @here &lt;mailto:a@evil\.example\|click&gt; \u02cbx\u02cb\\x1B\[2J\.csv` failed: /,
    );
    // Outside the one code span (the name), no markup a chat tool obeys.
    const prose = told.text.replace(/`[^`]*`/g, '');
    expect(prose).toContain('@\u2060all');
    expect(prose).not.toMatch(/[<>`]|@(?!\u2060)/);
    // The details carry the name as it is.
    expect(told.details.file).toBe(name);
  });
});
