/**
 * The console's access rules and answers over real HTTP (#30): read-only on loopback without a
 * password, off on another listener, the password asked everywhere but /healthz and /metrics,
 * actions refused from another origin or without the session's token, wrong passwords slowed
 * and counted, every value escaped. The browser tests (test/console/) drive the same by hand.
 */
import { mkdirSync } from 'node:fs';
import { get } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../src/config/index.ts';
import { type HttpServer, startHttpServer } from '../../src/daemon/httpServer.ts';
import { StockFailures } from '../../src/state/stock/stockFailures.ts';
import { type IngestEnv, makeIngestEnv } from '../inventory/helpers.ts';

const PASSWORD = 'correct horse battery';

let env: IngestEnv;
let config: Config;
let servers: HttpServer[];
beforeEach(() => {
  env = makeIngestEnv('console');
  mkdirSync(env.paths.held, { recursive: true });
  config = loadConfig({ env: { SYNC_DATA_DIR: env.dataDir, SYNC_TIMEZONE: 'Europe/Berlin' } });
  servers = [];
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await env.cleanup();
});

async function start(options: { host?: string; password?: string; delayMs?: number } = {}) {
  const server = await startHttpServer({
    port: 0,
    host: options.host ?? '127.0.0.1',
    db: env.db,
    config,
    log: env.capture.log,
    consolePassword: options.password,
    loginFailureDelayMs: options.delayMs,
    metricsEveryMs: 20,
  });
  servers.push(server);
  const base = `http://127.0.0.1:${server.port}`;
  const req = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${base}${path}`, { redirect: 'manual', ...init });
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      location: res.headers.get('location'),
      cookie: res.headers.get('set-cookie'),
      headers: res.headers,
      text: await res.text(),
    };
  };
  const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { server, base, req, form };
}

function failure(sku: string) {
  new StockFailures(env.db).record(
    { kind: 'factory', dc: '', sku, quantity: 3 },
    'Product not found',
    true,
    Date.now(),
    { baseMs: 60_000, maxMs: 3_600_000, notFoundMs: 3_600_000 },
  );
}

describe('without a password, on loopback: read-only', () => {
  it('serves the pages and /api/, escapes every value, and refuses actions', async () => {
    env.drop('<img src=x onerror=alert(1)>.csv', 'sku,stock_quantity\n<b>A</b>,x\n');
    await env.process('<img src=x onerror=alert(1)>.csv');
    const { req, form, base } = await start();
    const status = await req('/');
    expect(status.status).toBe(200);
    expect(status.type).toMatch(/^text\/html/);
    expect(status.text).toContain('Times in Europe/Berlin');
    expect(status.text).toContain('Read-only');
    // Every lane of the budget, the polls' own share included.
    expect(status.text).toMatch(
      /left now: shipments \d+, polls \d+, stock \d+, reconciliation \d+/,
    );
    expect(status.headers.get('content-security-policy')).toContain("default-src 'none'");
    const files = await req('/files');
    expect(files.text).toContain('&lt;img src=x onerror=alert(1)&gt;.csv');
    expect(files.text).not.toContain('<img src=x');
    const file = await req('/files/1');
    expect(file.text).toContain('factory:&lt;b&gt;A&lt;/b&gt;');
    expect(file.text).not.toContain('<b>A</b>');
    for (const path of ['/held', '/failures', '/shipments', '/explain', '/explain?key=factory:X'])
      expect((await req(path)).text).toContain('supplier-sync');

    const api = await req('/api/status');
    expect(api.type).toMatch(/^application\/json/);
    expect(JSON.parse(api.text).health.verdict).toBeDefined();
    expect(JSON.parse((await req('/api/files')).text)[0].outcome).toBe('failed');
    expect((await req('/api/explain/factory%3ANOWHERE')).status).toBe(404);
    expect((await req('/api/explain/nonsense')).status).toBe(400);

    const post = await req('/failures/retry', form({ all: '1' }));
    expect(post.status).toBe(403);
    expect(post.text).toContain('read-only');
    // Reached by another name (a DNS name pointed at 127.0.0.1): refused.
    // (fetch will not send another Host: a plain request does.)
    const rebound = await new Promise<number>((resolve, reject) => {
      get(`${base}/api/status`, { headers: { host: 'evil.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(rebound).toBe(403);
  });
});

describe('without a password, on an address other hosts reach: off', () => {
  it('answers 404 with one line saying why; /healthz and /metrics stay', async () => {
    const { req } = await start({ host: '0.0.0.0' });
    for (const path of ['/', '/api/status', '/files']) {
      const r = await req(path);
      expect(r.status).toBe(404);
      expect(r.text).toMatch(/^the console is off: without CONSOLE_PASSWORD_FILE/);
    }
    expect((await req('/metrics')).status).toBe(200);
    expect([200, 503]).toContain((await req('/healthz')).status);
    expect(env.capture.events('console.off')).toHaveLength(1);
  });
});

describe('with a password', () => {
  it('asks for it on every page and /api/ route, not on /healthz and /metrics', async () => {
    const { req } = await start({ host: '0.0.0.0', password: PASSWORD, delayMs: 10 });
    const page = await req('/held?x=1');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/login?next=%2Fheld%3Fx%3D1');
    expect((await req('/api/status')).status).toBe(401);
    expect((await req('/api/held')).status).toBe(401);
    expect((await req('/metrics')).status).toBe(200);
    // Scripts may send it as HTTP Basic credentials, on GET /api/ only.
    const basic = `Basic ${Buffer.from(`any:${PASSWORD}`).toString('base64')}`;
    expect((await req('/api/held', { headers: { authorization: basic } })).status).toBe(200);
    const wrongBasic = `Basic ${Buffer.from('any:guess').toString('base64')}`;
    expect((await req('/api/held', { headers: { authorization: wrongBasic } })).status).toBe(401);
    expect((await req('/held', { headers: { authorization: basic } })).status).toBe(303);
  });

  it('answers a wrong password slowly, counts and logs it, never the password', async () => {
    const { req, form } = await start({ password: PASSWORD });
    const started = Date.now();
    const [a, b] = await Promise.all([
      req('/login', form({ password: 'guess-one', next: '/' })),
      req('/login', form({ password: 'guess-two', next: '/' })),
    ]);
    // One at a time, a second each: two wrong guesses take two seconds however they are sent.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect([a.status, b.status]).toEqual([401, 401]);
    expect(a.text).toContain('Wrong password');
    expect(a.text).not.toContain('guess-one');
    expect(env.capture.events('console.login_failed')).toHaveLength(2);
    const metrics = await req('/metrics');
    expect(metrics.text).toContain('supplier_sync_console_login_failures_total 2');
    const ok = await req('/login', form({ password: PASSWORD, next: '/failures' }));
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/failures');
    expect(ok.cookie).toMatch(/HttpOnly; SameSite=Strict/);
    const logged = JSON.stringify(env.capture.lines());
    for (const secret of [PASSWORD, 'guess-one', 'guess-two']) expect(logged).not.toContain(secret);
  });

  it('acts only on POSTs of its own pages: session, CSRF token and origin', async () => {
    failure('A');
    failure('B');
    const { req, form, base } = await start({ password: PASSWORD });
    const login = await req('/login', form({ password: PASSWORD, next: '/' }));
    const cookie = login.cookie!.split(';')[0]!;
    const page = await req('/failures', { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('factory:A');
    expect(page.text).not.toContain(PASSWORD);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const due = () => new StockFailures(env.db).list().map((f) => f.nextAttemptAt);
    const before = due();

    // No session: to the login page, nothing done.
    expect((await req('/failures/retry', form({ csrf, key: 'factory:A' }))).location).toBe(
      '/login',
    );
    // No token, or another session's token: refused.
    const noToken = await req('/failures/retry', form({ key: 'factory:A' }, { cookie }));
    expect(noToken.status).toBe(403);
    const wrong = await req(
      '/failures/retry',
      form({ csrf: 'x'.repeat(43), key: 'factory:A' }, { cookie }),
    );
    expect(wrong.status).toBe(403);
    // The right token from a page of another origin: refused by its Origin and Sec-Fetch-Site.
    const other = await req(
      '/failures/retry',
      form({ csrf, key: 'factory:A' }, { cookie, origin: 'http://127.0.0.1:1' }),
    );
    expect(other.status).toBe(403);
    const site = await req(
      '/failures/retry',
      form({ csrf, key: 'factory:A' }, { cookie, 'sec-fetch-site': 'same-site' }),
    );
    expect(site.status).toBe(403);
    expect(due()).toEqual(before);
    expect(env.capture.events('console.forbidden').length).toBe(4);

    // From its own page: done, as `failures retry factory:A` does, and said on the next page.
    const done = await req(
      '/failures/retry',
      form({ csrf, key: 'factory:A' }, { cookie, origin: base, 'sec-fetch-site': 'same-origin' }),
    );
    expect(done.status).toBe(303);
    expect(done.location).toBe('/failures');
    const after = new StockFailures(env.db).list();
    expect(after.find((f) => f.key === 'factory:A')!.nextAttemptAt).toBeLessThanOrEqual(Date.now());
    expect(after.find((f) => f.key === 'factory:B')!.nextAttemptAt).toBe(before[1]);
    const next = await req('/failures', { headers: { cookie } });
    expect(next.text).toContain('put back in line: 1 stock item(s), 0 confirmation(s)');
    // Shown once.
    expect((await req('/failures', { headers: { cookie } })).text).not.toContain(
      'put back in line',
    );

    const out = await req('/logout', form({ csrf }, { cookie }));
    expect(out.location).toBe('/login');
    expect((await req('/failures', { headers: { cookie } })).status).toBe(303);
  });
});
