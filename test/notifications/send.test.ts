/**
 * One webhook POST (src/notifications/send.ts) against a real HTTP server on 127.0.0.1.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendNotification } from '../../src/notifications/send.ts';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A receiver answering `status`, keeping each request's path and headers. */
async function receiver(status: number) {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => res.writeHead(status).end());
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { seen, port: (server.address() as AddressInfo).port };
}

const send = (url: string) =>
  sendNotification({ url, body: '{"event":"x"}', event: 'x', id: 'd-1', timeoutMs: 5_000 });

describe('sendNotification', () => {
  it('sends credentials written in the URL (user:password@) as Basic auth, and never names them', async () => {
    const r = await receiver(204);
    const url = `http://hook%40ops:s3cr%3At-pw@127.0.0.1:${r.port}/hooks/supplier?x=1`;
    expect(await send(url)).toEqual({ ok: true, status: 204 });
    expect(r.seen).toHaveLength(1);
    expect(r.seen[0]!.path).toBe('/hooks/supplier?x=1');
    const auth = r.seen[0]!.headers.authorization ?? '';
    expect(Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString()).toBe(
      'hook@ops:s3cr:t-pw',
    );

    r.seen.length = 0;
    expect(await send(`http://127.0.0.1:${r.port}/plain`)).toMatchObject({ ok: true });
    expect(r.seen[0]!.headers.authorization).toBeUndefined();
  });

  it('a refusal with credentials in the URL does not quote them', async () => {
    const r = await receiver(401);
    const out = await send(`http://ops:pw-9f2e@127.0.0.1:${r.port}/`);
    expect(out).toEqual({ ok: false, status: 401, error: 'HTTP 401' });
    const refused = await send('http://ops:pw-9f2e@127.0.0.1:1/');
    expect(refused.ok).toBe(false);
    expect(JSON.stringify(refused)).not.toContain('pw-9f2e');
  });
});
