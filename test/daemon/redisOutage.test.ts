/**
 * Redis goes away and comes back (#13 point 8), with a real redis-server that is killed and
 * started again on its port: the daemon logs one `redis.down` and one `redis.up` (no error
 * dumps, no line a second), and its /healthz and /metrics answer at once during the outage
 * without piling up Redis commands that would all run when Redis returns.
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { type HttpServer, startHttpServer } from '../../src/daemon/httpServer.ts';
import { type RedisServer, startRedisServer } from '../../src/demo/redisServer.ts';
import { redisConnection } from '../../src/jobs/connection.ts';
import { closeQueues, createQueues } from '../../src/jobs/queues.ts';
import { watchRedis } from '../../src/jobs/redisWatch.ts';
import { openStateDb } from '../../src/state/db.ts';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { makeSandbox, type Sandbox, waitUntil } from '../helpers/sandbox.ts';
import { captureLog } from '../ops/helpers.ts';
import { freePort } from '../setup/redis.ts';

let h: Harness | undefined;
let redis: RedisServer | undefined;
let box: Sandbox | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  await redis?.stop({ kill: true });
  redis = undefined;
  await box?.cleanup();
  box = undefined;
});

/**
 * How long each outage lasts: long enough for a flood to show (ioredis retries several times a
 * second; a line per retry would be dozens of lines), and for /healthz and /metrics to be asked
 * more than ten times (a request every 100 ms).
 */
const OUTAGE_MS = 3000;

/** Lines of raw output that are not JSON log lines (console.error dumps, stack traces). */
const notJson = (text: string) =>
  text.split('\n').filter((l) => {
    if (l.trim() === '') return false;
    try {
      JSON.parse(l);
      return false;
    } catch {
      return true;
    }
  });

/** Commands Redis has run since it started, by name (INFO commandstats). */
async function commandCounts(url: string): Promise<Record<string, number>> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const info = await client.info('commandstats');
    const out: Record<string, number> = {};
    for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1]!] = Number(m[2]);
    return out;
  } finally {
    client.disconnect();
  }
}

describe('a Redis outage', { timeout: 120_000 }, () => {
  it('is logged once when it starts and once when it ends; the daemon catches up', async () => {
    redis = await startRedisServer();
    const port = await freePort();
    h = await startHarness('redis-outage', {}, { REDIS_URL: redis.url, HTTP_PORT: String(port) });
    const d = await h.start();
    h.drop('before.csv', factoryCsv([[seededSku(0), 501]]));
    await waitUntil(() => h!.sim.store.factoryStock(seededSku(0))?.stock_quantity === 501, {
      timeoutMs: 20_000,
      message: 'a file pushed before the outage',
    });

    const linesBefore = d.lines.length;
    const rawBefore = d.output().length;
    await redis.stop({ kill: true });
    await d.waitForEvent('redis.down', 15_000);
    // The outage lasts OUTAGE_MS; /healthz and /metrics are asked several times a second.
    const outageEnds = Date.now() + OUTAGE_MS;
    let asked = 0;
    while (Date.now() < outageEnds) {
      const [health, metrics] = await Promise.all([
        fetch(`http://127.0.0.1:${port}/healthz`),
        fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text()),
      ]);
      expect(health.status).toBe(503);
      expect(metrics).toMatch(/^supplier_sync_redis_up 0$/m);
      asked++;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(asked).toBeGreaterThan(10);
    h.drop('during.csv', factoryCsv([[seededSku(1), 502]]));
    redis = await startRedisServer({ port: redis.port });
    await d.waitForEvent('redis.up', 30_000);
    await waitUntil(() => h!.sim.store.factoryStock(seededSku(1))?.stock_quantity === 502, {
      timeoutMs: 40_000,
      message: 'a file dropped during the outage pushed after it',
    });

    const during = d.lines.slice(linesBefore);
    const named = (event: string) => during.filter((l) => l.event === event);
    expect(named('redis.down')).toHaveLength(1);
    expect(named('redis.up')).toHaveLength(1);
    expect(named('redis.up')[0]!.downForMs).toBeGreaterThanOrEqual(OUTAGE_MS);
    // No multi-line console.error dumps, and no stream of error lines.
    expect(notJson(d.output().slice(rawBefore))).toEqual([]);
    const loud = during.filter((l) => l.level === 'warn' || l.level === 'error');
    expect(loud.map((l) => l.event)).toEqual(['redis.down']);
    expect(await h.stop()).toBe(0);
  });

  it('does not pile up Redis commands from /healthz and /metrics, and answers at once', async () => {
    redis = await startRedisServer();
    box = makeSandbox('redis-pileup');
    const config = loadConfig({
      env: { SYNC_DATA_DIR: box.dataDir, REDIS_URL: redis.url, SYNC_QUEUE_PREFIX: box.prefix },
    });
    const db = openStateDb(`${box.dataDir}/state.db`);
    const captured = captureLog();
    const connection = redisConnection(redis.url);
    const watch = watchRedis({ log: captured.log });
    watch.connection(connection, 'daemon');
    const queues = createQueues(connection, box.prefix, watch.onError);
    let server: HttpServer | undefined;
    try {
      await waitUntil(() => watch.state().up, { message: 'Redis up' });
      server = await startHttpServer({
        port: 0,
        host: '127.0.0.1',
        db,
        config,
        queues,
        redis: watch,
        log: captured.log,
      });
      const url = `http://127.0.0.1:${server.port}`;
      expect(
        (await fetch(`${url}/metrics`).then((r) => r.text())).match(/redis_up 1/),
      ).toBeTruthy();

      await redis.stop({ kill: true });
      await waitUntil(() => !watch.state().up, { message: 'Redis seen down' });
      for (let round = 0; round < 5; round++) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            i % 2
              ? fetch(`${url}/healthz`).then((r) => r.json() as Promise<{ problems: string[] }>)
              : fetch(`${url}/metrics`).then((r) => r.text()),
          ),
        );
        for (const a of answers) {
          if (typeof a === 'string') expect(a).toMatch(/^supplier_sync_redis_up 0$/m);
          else expect(a.problems[0]).toMatch(/^redis: down since /);
        }
      }

      redis = await startRedisServer({ port: redis.port });
      await waitUntil(() => watch.state().up, { timeoutMs: 20_000, message: 'Redis up again' });
      // Redis runs one connection's commands in order: once this PING is answered, whatever
      // the connection had queued during the outage has run too.
      await connection.ping();
      const counts = await commandCounts(redis.url);
      const scripts = (counts.evalsha ?? 0) + (counts.eval ?? 0) + (counts.fcall ?? 0);
      expect(scripts, JSON.stringify(counts)).toBe(0);
      expect((await fetch(`${url}/healthz`).then((r) => r.json())) as object).toMatchObject({
        redis: 'ok',
      });

      // A Redis that hangs (frozen, its sockets open): the connection still looks up, so each
      // probe is sent — but one at a time, the next ones waiting for that one's answer.
      const before = await commandCounts(redis.url);
      process.kill(redis.pid, 'SIGSTOP');
      try {
        for (let round = 0; round < 3; round++) {
          const answers = await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              fetch(`${url}/${i % 2 ? 'healthz' : 'metrics'}`).then((r) => r.text()),
            ),
          );
          // /healthz asks Redis and times out; /metrics answers at once from its last figures
          // (its refresh, on a timer, asks one at a time too).
          for (const [i, a] of answers.entries())
            expect(a).toMatch(i % 2 ? /timed out|no answer/ : /^supplier_sync_redis_up [01]$/m);
        }
      } finally {
        process.kill(redis.pid, 'SIGCONT');
      }
      await connection.ping();
      const after = await commandCounts(redis.url);
      const frozen = Object.fromEntries(
        Object.entries(after).map(([name, n]) => [name, n - (before[name] ?? 0)]),
      );
      // One health query (a script) and one set of queue depths (five) at most, not thirty sets.
      const frozenScripts = (frozen.evalsha ?? 0) + (frozen.eval ?? 0) + (frozen.fcall ?? 0);
      expect(frozenScripts, JSON.stringify(frozen)).toBeLessThanOrEqual(6);
    } finally {
      await server?.close();
      watch.stop();
      await closeQueues(queues);
      connection.disconnect();
      db.close();
    }
  });
});
