import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST as the receiver saw it, and what it answered. */
export interface Received {
  readonly body: string;
  // biome-ignore lint/suspicious/noExplicitAny: the notification's JSON, read field by field by the tests
  readonly json: any;
  readonly headers: IncomingHttpHeaders;
  /** The status answered; 0 when it answered nothing (hang). */
  readonly status: number;
  /** The X-Supplier-Sync-Signature header is the HMAC-SHA256 of the body with the secret. */
  readonly signatureOk: boolean;
}

/**
 * A webhook receiver on 127.0.0.1, as a user's would be: it checks each POST's signature with
 * the shared secret (its own code, as docs/notifications.md shows it) and answers `status`
 * (200 unless the test says otherwise). `close` takes it away (connections cut); `listen`
 * brings it back on the same port.
 */
export interface Receiver {
  readonly url: string;
  readonly port: number;
  /** What the next POSTs are answered. */
  status: number;
  /** Answer nothing at all (the connection stays open until the sender gives up or `close`). */
  hang: boolean;
  readonly received: Received[];
  /** The bodies answered with a 2xx, in the order they came. */
  delivered(): Received[];
  close(): Promise<void>;
  listen(): Promise<void>;
}

export function verify(body: Buffer | string, header: string | undefined, secret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startReceiver(secret: string): Promise<Receiver> {
  let server: Server | undefined;
  let port = 0;
  const received: Received[] = [];
  const r: Receiver = {
    get url() {
      return `http://127.0.0.1:${port}/hooks/supplier-sync`;
    },
    get port() {
      return port;
    },
    status: 200,
    hang: false,
    received,
    delivered: () => received.filter((x) => x.status >= 200 && x.status < 300),
    async close() {
      const s = server;
      server = undefined;
      if (s === undefined) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    async listen() {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const raw = Buffer.concat(chunks);
          const status = r.hang ? 0 : r.status;
          let json: unknown;
          try {
            json = JSON.parse(raw.toString('utf8'));
          } catch {
            json = undefined;
          }
          received.push({
            body: raw.toString('utf8'),
            json,
            headers: req.headers,
            status,
            signatureOk: verify(raw, req.headers['x-supplier-sync-signature'] as string, secret),
          });
          if (r.hang) return;
          res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
        });
      });
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => resolve());
      });
      port = (s.address() as AddressInfo).port;
      server = s;
    },
  };
  await r.listen();
  return r;
}
