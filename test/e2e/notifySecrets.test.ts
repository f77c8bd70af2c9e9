/**
 * The webhook's secrets never leak (#30, notifications): the daemon as a real process (its
 * scrubber knows only what the process registered) with a signing secret from a file and a
 * webhook URL whose path is itself a credential, as a chat tool's is. Its whole output, the
 * commands' output and every body the receiver got are scanned; every POST is signed.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, seededSku } from '../helpers/daemonHarness.ts';
import { runCliToEnd } from '../helpers/daemonProcess.ts';
import { type ProcessHarness, startProcessHarness } from '../helpers/processHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { type Receiver, startReceiver } from '../helpers/webhookReceiver.ts';

let h: ProcessHarness | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await h?.cleanup();
  await receiver?.close();
  h = undefined;
  receiver = undefined;
});

const SECRET = `whsec-SECRET-${randomBytes(6).toString('hex')}-canary`;
const PATH_TOKEN = `T0KEN-${randomBytes(8).toString('hex')}`;
const PASSWORD = `pw-SECRET-${randomBytes(6).toString('hex')}-canary`;

describe('webhook secrets', { timeout: 90_000 }, () => {
  it('neither the signing secret, the URL’s path nor the portal password appears in output or payloads', async () => {
    receiver = await startReceiver(SECRET);
    receiver.status = 500;
    const url = `http://127.0.0.1:${receiver.port}/hooks/${PATH_TOKEN}`;
    h = await startProcessHarness(
      'notify-secrets',
      { password: PASSWORD },
      { SUPPLIER_PASSWORD: PASSWORD },
    );
    const secretFile = join(h.box.dataDir, 'webhook-secret');
    writeFileSync(secretFile, `${SECRET}\n`);
    const d = await h.start({
      NOTIFY_WEBHOOK_URL: url,
      NOTIFY_WEBHOOK_SECRET_FILE: secretFile,
      NOTIFY_RETRY_BASE_MS: '200',
      NOTIFY_RETRY_MAX_MS: '400',
    });
    h.drop('unknown.csv', 'colour,size\nred,XL\n');
    h.drop('some-bad.csv', factoryCsv([[seededSku(0), 5]]).concat(`${seededSku(1)},abc\n`));
    await d.waitFor((l) => l.event === 'notify.failed', 20_000, 'a refused notification');
    receiver.status = 200;
    await waitUntil(() => receiver!.delivered().length === 2, {
      timeoutMs: 20_000,
      message: 'both notifications delivered',
    });
    const status = await runCliToEnd(['status', '--json'], h.env);
    expect(status.code).toBe(0);
    expect(await h.stop()).toBe(0);

    expect(receiver.received.every((x) => x.signatureOk)).toBe(true);
    expect(
      receiver
        .delivered()
        .map((x) => x.json.event)
        .sort(),
    ).toEqual(['file.failed', 'file.rows_rejected']);
    const sources = [
      { what: 'daemon output', text: d.output() },
      { what: 'status --json', text: status.output },
      ...receiver.received.map((x, i) => ({ what: `body ${i}`, text: x.body })),
    ];
    const needles = [SECRET, PATH_TOKEN, PASSWORD];
    const leaks = sources.flatMap((s) =>
      needles.filter((n) => s.text.includes(n)).map((n) => `${s.what} holds ${n}`),
    );
    expect(leaks).toEqual([]);
    // The log names where notifications go by origin only.
    expect(d.output()).toContain(`notification delivered to http://127.0.0.1:${receiver.port}`);
  });
});
