/**
 * Secrets never leak (issue #8): the real daemon (a child process: everything it writes, in and
 * outside its log, is scanned, and its scrubber knows only its own secrets) runs with a
 * distinctive password through logins, token invalidations and re-logins, portal faults, rejected
 * items, shipment exports and confirmations, then a second run with a wrong password read from
 * SUPPLIER_PASSWORD_FILE. Every log line, report, outbox file and the status/failures/health
 * outputs (each command a process of its own) are scanned for both passwords and for every token
 * the simulator issued. Redis is a private redis-server with a password (#13): the REDIS_URL
 * password (as written, percent-encoded, and decoded) and a wrong one tried by `health` must not
 * appear either.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RedisServer, startRedisServer } from '../../src/demo/redisServer.ts';
import { factoryCsv, seededSku } from '../helpers/daemonHarness.ts';
import { runCliToEnd } from '../helpers/daemonProcess.ts';
import { type ProcessHarness as Harness, startProcessHarness } from '../helpers/processHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: Harness | undefined;
let redis: RedisServer | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  await redis?.stop({ kill: true });
  redis = undefined;
});

// Quotes, a backslash and non-ASCII: a secret written JSON-escaped must be caught too.
const PASSWORD = `pw-SECRET-${randomBytes(6).toString('hex')}-"q\\ü-canary`;
const WRONG = `pw-WRONG-${randomBytes(6).toString('hex')}-"q\\ü-canary`;
// The Redis password holds characters a URL must percent-encode ('@', '%', '"', '/').
const REDIS_PASSWORD = `rpw-SECRET-${randomBytes(6).toString('hex')}-@%"/-canary`;
const REDIS_WRONG = `rpw-WRONG-${randomBytes(6).toString('hex')}-@%"/-canary`;

/** Every file under the folders the daemon writes for people to read. */
function writtenFiles(dataDir: string): Array<{ path: string; text: string }> {
  return ['processed', 'failed', 'outbox'].flatMap((folder) =>
    readdirSync(join(dataDir, folder)).map((n) => ({
      path: `${folder}/${n}`,
      text: readFileSync(join(dataDir, folder, n), 'utf8'),
    })),
  );
}

/** The secrets to look for: whole values, and the random part of each token and its start. */
function needles(tokens: readonly string[]): string[] {
  const out = [PASSWORD, WRONG, REDIS_PASSWORD, REDIS_WRONG].flatMap((p) => [
    p,
    JSON.stringify(p).slice(1, -1),
    encodeURIComponent(p),
  ]);
  for (const t of tokens) {
    const random = t.slice(t.indexOf('|') + 1);
    out.push(t, random, random.slice(0, 12));
  }
  return out;
}

describe('secrets', { timeout: 90_000 }, () => {
  it('neither password nor any token appears in logs, reports, outbox files or CLI output', async () => {
    redis = await startRedisServer({ password: REDIS_PASSWORD });
    expect(redis.url).toContain(encodeURIComponent(REDIS_PASSWORD));
    h = await startProcessHarness(
      'secrets',
      { password: PASSWORD, maxBulkItems: 20, shipments: 6 },
      { SUPPLIER_PASSWORD: PASSWORD, BULK_BATCH_SIZE: '20', REDIS_URL: redis.url },
    );
    const sim = h.sim;
    const logins = (d: NonNullable<Harness['daemon']>) =>
      d.lines.filter((l) => l.event === 'api.login').length;

    // Run 1: the right password.
    const run1 = await h.start();
    const exported = await run1.waitForEvent('shipments.exported', 20_000);
    await waitUntil(() => logins(run1) === 1, { message: 'the first login' });

    let q = 100;
    const pushRound = async (name: string) => {
      q++;
      const pushes = run1.lines.filter((l) => l.event === 'stock.pushed').length;
      h!.drop(
        name,
        factoryCsv([
          [seededSku(0), q],
          [seededSku(1), q],
          ['NO-SUCH-SKU', q],
        ]),
      );
      await waitUntil(() => run1.lines.filter((l) => l.event === 'stock.pushed').length > pushes, {
        timeoutMs: 15_000,
        message: `the push of ${name}`,
      });
      await waitUntil(() => sim.store.factoryStock(seededSku(0))?.stock_quantity === q, {
        timeoutMs: 15_000,
        message: `${name} on the portal`,
      });
    };
    await pushRound('first.csv');
    await run1.waitFor((l) => l.event === 'stock.item_failed' && l.sku === 'NO-SUCH-SKU', 10_000);

    // Tokens invalidated three times: each time a 401 and a new login.
    for (let i = 1; i <= 3; i++) {
      sim.faults.invalidateTokens();
      await pushRound(`after-invalidation-${i}.csv`);
      await waitUntil(() => logins(run1) === 1 + i, { message: `re-login ${i}` });
    }

    // Portal faults: a 500 with an HTML body, a reset connection, a 429.
    sim.faults.set({ next500: 1, nextReset: 1, next429: 1 });
    await pushRound('through-faults.csv');
    sim.faults.clear();

    // Confirmations for two exported orders.
    const outboxFile = join(h.box.dataDir, 'outbox', String(exported.file));
    const orders = (
      JSON.parse(readFileSync(outboxFile, 'utf8')) as { shipments: Array<{ order_number: string }> }
    ).shipments
      .slice(0, 2)
      .map((s) => s.order_number);
    expect(orders).toHaveLength(2);
    h.drop(
      'confirmations.csv',
      `order_number,carrier,tracking_number\n${orders.map((o, i) => `${o},UPS,1Z${i}SECRETLESS`).join('\n')}\n`,
    );
    await waitUntil(() => run1.lines.filter((l) => l.event === 'shipment.confirmed').length === 2, {
      timeoutMs: 15_000,
      message: 'two confirmations sent',
    });

    // The commands as processes of their own: in this process the scrubber would know the
    // daemon's tokens and hide a command that printed one. Run side by side.
    const cliOutputs: string[] = [];
    const commands = [
      ['status', '--json'],
      ['failures', '--json'],
      ['status'],
      ['failures'],
      ['health', '--json'],
    ];
    const runs = await Promise.all(commands.map((args) => runCliToEnd(args, h!.env)));
    runs.forEach((r, i) => {
      expect(r.code, commands[i]!.join(' ')).toBe(0);
      cliOutputs.push(r.output);
    });
    // Redis answered the status read through the password (queue depths, not an error).
    expect(JSON.parse(cliOutputs[0]!.slice(cliOutputs[0]!.indexOf('{'))).queues.error).toBe(
      undefined,
    );
    // A wrong Redis password: refused by Redis, and said so without either password.
    const wrongRedis = redis.url.replace(
      encodeURIComponent(REDIS_PASSWORD),
      encodeURIComponent(REDIS_WRONG),
    );
    const wrong = await Promise.all(
      [['health'], ['status']].map((args) =>
        runCliToEnd(args, { ...h!.env, REDIS_URL: wrongRedis }),
      ),
    );
    for (const r of wrong) {
      expect(r.output).toMatch(/WRONGPASS|NOAUTH|invalid (username-)?password/i);
      cliOutputs.push(r.output);
    }
    expect(JSON.parse(cliOutputs[1]!.slice(cliOutputs[1]!.indexOf('{'))).stock.length).toBe(1);
    expect(await h.stop()).toBe(0);

    // Run 2: a wrong password from a file, the stored token invalidated: the login is refused.
    const passwordFile = join(h.box.dataDir, 'password.txt');
    writeFileSync(passwordFile, `${WRONG}\n`);
    sim.faults.invalidateTokens();
    const fileEnv = { SUPPLIER_PASSWORD: '', SUPPLIER_PASSWORD_FILE: passwordFile };
    const run2 = await h.start(fileEnv);
    h.drop('wrong-password.csv', factoryCsv([[seededSku(0), 1]]));
    const rejected = await run2.waitForEvent('api.login_rejected', 20_000);
    expect(rejected.status).toBe(401);
    const [status2, failures2, both] = await Promise.all([
      runCliToEnd(['status', '--json'], { ...h.env, ...fileEnv }),
      runCliToEnd(['failures', '--json'], { ...h.env, ...fileEnv }),
      // Both set at once: a configuration error naming the key, not the value.
      runCliToEnd(['status'], { ...h.env, SUPPLIER_PASSWORD_FILE: passwordFile }),
    ]);
    cliOutputs.push(status2.output, failures2.output);
    expect(both.code).toBe(78);
    cliOutputs.push(both.output);
    await h.stop();

    // The scan.
    const tokens = sim.issuedTokens();
    expect(tokens.length).toBe(4);
    const sources = [
      { what: 'run 1 output', text: run1.output() },
      { what: 'run 2 output', text: run2.output() },
      ...cliOutputs.map((text, i) => ({ what: `CLI output ${i}`, text })),
      ...writtenFiles(h.box.dataDir).map((f) => ({ what: f.path, text: f.text })),
    ];
    expect(sources.filter((s) => s.what.endsWith('.report.json')).length).toBeGreaterThanOrEqual(7);
    expect(sources.some((s) => s.what.startsWith('outbox/'))).toBe(true);
    const leaks = sources.flatMap((s) =>
      needles(tokens)
        .filter((n) => s.text.includes(n))
        .map((n) => `${s.what} holds ${n.includes('-canary') ? 'a password' : 'a token'}`),
    );
    expect(leaks).toEqual([]);
    // The scan looked at something real: logins, failures, faults and confirmations were logged.
    for (const event of ['api.login', 'stock.item_failed', 'shipment.confirmed', 'daemon.started'])
      expect(
        run1.lines.some((l) => l.event === event),
        event,
      ).toBe(true);
    // daemon.started describes REDIS_URL with its password masked, the rest of it kept.
    const started = run1.lines.find((l) => l.event === 'daemon.started') as {
      config: Record<string, unknown>;
    };
    expect(started.config.REDIS_URL).toBe(`redis://:***@127.0.0.1:${redis!.port}`);
  });
});
