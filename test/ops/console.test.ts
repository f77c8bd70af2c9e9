/**
 * The console's access rules and answers over real HTTP (#30): read-only on loopback without a
 * password, off on another listener, the password asked everywhere but /healthz and /metrics,
 * actions refused from another origin or without the session's token, wrong passwords slowed
 * and counted, every value escaped. The browser tests (test/console/) drive the same by hand.
 */
import { mkdirSync } from 'node:fs';
import { get, request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../src/config/index.ts';
import { type HttpServer, startHttpServer } from '../../src/daemon/httpServer.ts';
import { StockFailures } from '../../src/state/stock/stockFailures.ts';
import { waitUntil } from '../helpers/sandbox.ts';
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

async function start(
  options: {
    host?: string;
    password?: string;
    delayMs?: number;
    settings?: Record<string, string>;
  } = {},
) {
  const server = await startHttpServer({
    port: 0,
    host: options.host ?? '127.0.0.1',
    db: env.db,
    config: options.settings
      ? loadConfig({ env: { SYNC_DATA_DIR: env.dataDir, ...options.settings } })
      : config,
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
  /** One request from a local address of our choosing (127.0.0.0/8 all reach the listener). */
  const from = (localAddress: string, path: string, init: RawInit = {}) =>
    rawRequest(server.port, localAddress, path, init);
  return { server, base, req, form, from };
}

interface RawInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A plain HTTP request with its own local address; the answer and how long it took. */
function rawRequest(port: number, localAddress: string, path: string, init: RawInit) {
  const started = performance.now();
  return new Promise<{ status: number; location?: string; text: string; ms: number }>(
    (resolve, reject) => {
      const r = request(
        {
          host: '127.0.0.1',
          port,
          path,
          localAddress,
          method: init.method ?? 'GET',
          headers: init.headers,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              location: res.headers.location,
              text,
              ms: performance.now() - started,
            }),
          );
        },
      );
      r.on('error', reject);
      r.end(init.body);
    },
  );
}

/** A POST of the login form. */
const loginForm = (password: string, next = '/', headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams({ password, next }).toString(),
});

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

describe("the login page's next", () => {
  /** `next` as written in the query string (the issue's first two, then every other way out). */
  const OUT = [
    '/%09/evil.example',
    '/%0a/evil.example',
    '/%0d/evil.example',
    '/%0d%0aSet-Cookie:%20x=1',
    '%2f%2fevil.example',
    '/%5cevil.example',
    '/%5c/evil.example',
    '/%252f%252fevil.example',
    '/%2509/evil.example',
    '//evil.example',
    '/\\evil.example',
    'http://evil.example/',
    'https%3A%2F%2Fevil.example',
    'javascript:alert(1)',
    '/a/../..//evil.example',
  ];

  it('goes to the console’s own pages only: every other next is /, never a 500', async () => {
    const { req } = await start({ password: PASSWORD, delayMs: 10 });
    for (const next of OUT) {
      const page = await req(`/login?next=${next}`);
      expect(page.status, next).toBe(200);
      expect(page.text, next).toContain('<input type="hidden" name="next" value="/">');
      const posted = new URLSearchParams(`next=${next}`).get('next')!;
      const login = await req('/login', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ password: PASSWORD, next: posted }).toString(),
      });
      expect(login.status, next).toBe(303);
      expect(login.location, next).toBe('/');
    }
    // Its own pages stay: where an expired session was sent from.
    const own = await req(`/login?next=${encodeURIComponent('/explain?key=factory:SKU-1')}`);
    expect(own.text).toContain('value="/explain?key=factory:SKU-1"');
    const back = await req('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password: PASSWORD, next: '/files?limit=5' }).toString(),
    });
    expect(back.location).toBe('/files?limit=5');
  });
});

describe("wrong passwords slow the client that sends them, not everyone's", () => {
  /** The delay after each wrong password here (the default, a second, is tested above). */
  const DELAY_MS = 400;
  const basic = (password: string) => `Basic ${Buffer.from(`any:${password}`).toString('base64')}`;
  const answered = (all: { status: number }[], status: number) =>
    all.filter((a) => a.status === status).length;
  const refused = () => env.capture.events('console.login_throttled').length;

  /**
   * `count` wrong passwords from one client at once; `pending()` says how many are unanswered.
   * A connection cut (the server closed after a failure) is an answer of status 0.
   */
  function guessesFrom(
    send: (i: number) => Promise<{ status: number }>,
    count: number,
  ): { all: Promise<{ status: number }[]>; pending: () => number } {
    let pending = count;
    const all = Array.from({ length: count }, (_, i) =>
      send(i)
        .catch(() => ({ status: 0 }))
        .finally(() => pending--),
    );
    return { all: Promise.all(all), pending: () => pending };
  }

  it('a stranger’s guesses keep neither the right password nor HTTP Basic of another client out; the stranger is slowed and refused', async () => {
    const { from } = await start({ password: PASSWORD, delayMs: DELAY_MS });
    const [stranger, operator] = ['127.0.0.2', '127.0.0.3'];
    const guesses = guessesFrom((i) => from(stranger, '/login', loginForm(`guess-${i}`)), 30);
    // Ten wait their turn, DELAY_MS each; the rest are refused at once (a few more wait when
    // the thirty arrive over more than DELAY_MS, as the first ones are answered meanwhile).
    await waitUntil(() => refused() >= 15, {
      message: "the stranger's attempts beyond ten refused",
    });

    const right = await from(operator, '/login', loginForm(PASSWORD, '/failures'));
    expect(right).toMatchObject({ status: 303, location: '/failures' });
    const api = await from(operator, '/api/status', {
      headers: { authorization: basic(PASSWORD) },
    });
    expect(api.status).toBe(200);
    // Both answered while the stranger's queue of ten delays had hardly begun.
    expect(guesses.pending()).toBeGreaterThanOrEqual(5);
    // The operator's own typo is answered slowly, in the operator's own lane: never a 429.
    const typo = await from(operator, '/login', loginForm('operator-typo'));
    expect(typo.status).toBe(401);
    expect(typo.ms).toBeGreaterThanOrEqual(DELAY_MS * 0.9);

    const all = await guesses.all;
    expect(answered(all, 401) + answered(all, 429)).toBe(30);
    expect(answered(all, 429)).toBe(refused());
    expect(answered(all, 429)).toBeGreaterThanOrEqual(15);
    const throttled = env.capture.events('console.login_throttled');
    expect(new Set(throttled.map((l) => l.client))).toEqual(new Set([stranger]));
    expect(env.capture.events('console.login_failed').length).toBe(answered(all, 401) + 1);
  });

  it('behind a trusted proxy each client is the address X-Forwarded-For names; from anyone else that header is not read', async () => {
    const { from } = await start({
      password: PASSWORD,
      delayMs: DELAY_MS,
      settings: { CONSOLE_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' },
    });
    const proxy = '127.0.0.1';
    const viaProxy = guessesFrom(
      (i) =>
        from(
          proxy,
          '/login',
          loginForm(`guess-${i}`, '/', { 'x-forwarded-for': '203.0.113.66, 10.1.2.3' }),
        ),
      20,
    );
    await waitUntil(() => refused() >= 5, {
      message: "the proxied stranger's attempts beyond ten refused",
    });
    const right = await from(
      proxy,
      '/login',
      loginForm(PASSWORD, '/', { 'x-forwarded-for': '198.51.100.7' }),
    );
    expect(right.status).toBe(303);
    expect(viaProxy.pending()).toBeGreaterThanOrEqual(5);
    const proxied = await viaProxy.all;
    expect(answered(proxied, 401) + answered(proxied, 429)).toBe(20);
    expect(answered(proxied, 429)).toBeGreaterThanOrEqual(5);
    expect(new Set(env.capture.events('console.login_failed').map((l) => l.client))).toEqual(
      new Set(['203.0.113.66']),
    );

    // Not a proxy: a fresh X-Forwarded-For on every guess is no fresh client.
    const before = refused();
    const spoofed = await guessesFrom(
      (i) =>
        from(
          '127.0.0.2',
          '/login',
          loginForm(`guess-${i}`, '/', { 'x-forwarded-for': `192.0.2.${i}` }),
        ),
      20,
    ).all;
    expect(answered(spoofed, 401) + answered(spoofed, 429)).toBe(20);
    expect(answered(spoofed, 429)).toBeGreaterThanOrEqual(5);
    expect(refused() - before).toBe(answered(spoofed, 429));
    const spoofers = env.capture.events('console.login_throttled').slice(before);
    expect(new Set(spoofers.map((l) => l.client))).toEqual(new Set(['127.0.0.2']));
  });
});
