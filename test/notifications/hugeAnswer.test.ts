/**
 * A webhook receiver that answers hundreds of MB (product.md, "Small things an attacker or an
 * accident could use"; issue #40 point 4): the daemon read the whole answer (`res.arrayBuffer()`)
 * and went from 139 MB to 1.1 GB on a 300 MB one. It reads at most 64 KiB and drops the
 * connection; the status decides the delivery. The real daemon in this process, a real receiver
 * on 127.0.0.1 that streams its answer from one reused buffer (it allocates nothing per byte).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

const ANSWER_BYTES = 300 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

let h: Harness | undefined;
let server: Server | undefined;
afterEach(async () => {
  await h?.cleanup();
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  h = undefined;
  server = undefined;
});

interface Answered {
  event: string;
  status: number;
  /** Bytes of the answer handed to the socket before the daemon dropped it. */
  sent: number;
  /** Whether the connection ended before the whole answer was sent; undefined while open. */
  cut: boolean | undefined;
}

/** A receiver answering `status` with ANSWER_BYTES of body, written as the socket takes them. */
async function hugeReceiver(status: () => number) {
  const answered: Answered[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const a: Answered = {
        event: JSON.parse(Buffer.concat(chunks).toString('utf8')).event,
        status: status(),
        sent: 0,
        cut: undefined,
      };
      answered.push(a);
      res.writeHead(a.status, {
        'content-type': 'application/octet-stream',
        'content-length': ANSWER_BYTES,
      });
      const pump = () => {
        while (a.sent < ANSWER_BYTES && !res.destroyed) {
          a.sent += CHUNK.length;
          if (!res.write(CHUNK)) return; // wait for 'drain'
        }
        if (a.sent >= ANSWER_BYTES) res.end();
      };
      res.on('drain', pump);
      res.on('close', () => {
        a.cut = a.sent < ANSWER_BYTES || !res.writableFinished;
      });
      pump();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { answered, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

/** Samples this process's resident memory until stopped; the highest reading. */
function rssPeak() {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 25);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

const MiB = 1024 * 1024;

describe('a webhook receiver answering hundreds of MB', { timeout: 60_000 }, () => {
  it('costs the daemon nothing: 64 KiB read, the connection dropped, the delivery decided by the status', async () => {
    let status = 200;
    const r = await hugeReceiver(() => status);
    h = await startHarness('notify-huge', { products: 20 }, { NOTIFY_WEBHOOK_URL: r.url });
    const d = await h.start();
    const before = process.memoryUsage().rss;
    const sampling = rssPeak();

    // 200 and 300 MB of body: delivered.
    h.drop('a-unknown.csv', 'colour,size\nred,XL\n');
    await d.waitFor((l) => l.event === 'file.failed' && l.file === 'a-unknown.csv');
    await h.runNow('notifications');
    const delivered = await d.waitFor(
      (l) => l.event === 'notify.delivered' && l.notification === 'file.failed',
    );
    expect(delivered).toMatchObject({ status: 200, attempts: 1 });
    expect((await h.statusJson()).notifications).toMatchObject({ queued: 0 });

    // 500 and 300 MB of body: a failed attempt, kept for its retry.
    status = 500;
    h.drop('b-unknown.csv', 'colour,size\nblue,S\n');
    await d.waitFor((l) => l.event === 'file.failed' && l.file === 'b-unknown.csv');
    await h.runNow('notifications');
    const failed = await d.waitFor(
      (l) => l.event === 'notify.failed' && l.notification === 'file.failed',
    );
    expect(failed).toMatchObject({ status: 500, error: 'HTTP 500' });
    expect((await h.statusJson()).notifications).toMatchObject({ queued: 1 });

    await waitUntil(() => r.answered.every((a) => a.cut !== undefined), {
      message: 'both answers closed',
    });
    const peak = sampling.stop();
    expect(r.answered.map((a) => [a.event, a.status])).toEqual([
      ['file.failed', 200],
      ['file.failed', 500],
    ]);
    for (const a of r.answered) {
      // What the sockets' buffers took before the daemon let go, not the 300 MB.
      expect(a.sent).toBeLessThan(32 * MiB);
      expect(a.cut).toBe(true);
    }
    // Flat: reading either answer whole would have held 300 MB.
    expect((peak - before) / MiB).toBeLessThan(100);
  });
});
