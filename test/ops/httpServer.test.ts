import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setLoginBlock } from '../../src/api/auth/loginBlock.ts';
import { type Config, loadConfig } from '../../src/config/index.ts';
import { HEARTBEAT_STALE_MS } from '../../src/daemon/heartbeat.ts';
import { type HttpServer, startHttpServer } from '../../src/daemon/httpServer.ts';
import { redisConnection } from '../../src/jobs/connection.ts';
import { closeQueues, createQueues, type Queues } from '../../src/jobs/queues.ts';
import { CallLog } from '../../src/state/calls/callLog.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { ConfirmationSends } from '../../src/state/shipments/confirmationSends.ts';
import { storeConfirmations } from '../../src/state/shipments/confirmations.ts';
import { PendingStock } from '../../src/state/stock/pendingStock.ts';
import { StockFailures } from '../../src/state/stock/stockFailures.ts';
import { makeSandbox, type Sandbox, waitUntil } from '../helpers/sandbox.ts';
import { captureLog } from './helpers.ts';

const NOW = Date.UTC(2025, 0, 6, 12, 0, 0);
const MIN = 60_000;

let sandbox: Sandbox;
let db: StateDb;
let config: Config;
let connection: ReturnType<typeof redisConnection>;
let queues: Queues;
let servers: HttpServer[];

beforeEach(() => {
  sandbox = makeSandbox('http');
  config = loadConfig({
    env: {
      SYNC_DATA_DIR: sandbox.dataDir,
      REDIS_URL: sandbox.redisUrl,
      SYNC_QUEUE_PREFIX: sandbox.prefix,
      API_REQUESTS_PER_HOUR: '100',
      API_STOCK_RESERVE: '10',
      API_RECONCILE_RESERVE: '30',
      SYNC_STALE_AFTER_MS: String(60 * MIN),
    },
  });
  db = openStateDb(join(sandbox.dataDir, 'state.db'));
  connection = redisConnection(sandbox.redisUrl);
  queues = createQueues(connection, sandbox.prefix, () => () => {});
  servers = [];
});

afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await closeQueues(queues);
  connection.disconnect();
  db.close();
  await sandbox.cleanup();
});

const beat = (at: number) =>
  new KeyValueStore(db).set('daemon.heartbeat', { at, pid: process.pid, startedAt: at - MIN }, at);

async function start(
  options: { queues?: boolean; now?: () => number; db?: StateDb; metricsEveryMs?: number } = {},
) {
  const captured = captureLog();
  const server = await startHttpServer({
    port: 0,
    host: '127.0.0.1',
    db: options.db ?? db,
    config,
    queues: options.queues === false ? undefined : queues,
    log: captured.log,
    now: options.now ?? (() => NOW),
    metricsEveryMs: options.metricsEveryMs,
  });
  servers.push(server);
  const get = async (path: string, init?: RequestInit) => {
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`, init);
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  return { server, get, captured };
}

/** The value of one sample in Prometheus text, e.g. sample(t, 'x{kind="dc"}'); undefined if absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('/healthz', () => {
  it('is 200 with a fresh heartbeat and Redis, 503 with a stale, missing or future-dated heartbeat', async () => {
    const { get, captured } = await start();
    expect(captured.events('http.listening')).toHaveLength(1);

    let res = await get('/healthz');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text)).toMatchObject({
      healthy: false,
      problems: ['daemon: no heartbeat yet'],
      redis: 'ok',
      stateDb: 'ok',
    });

    beat(NOW - 5000);
    res = await get('/healthz');
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json');
    expect(JSON.parse(res.text)).toEqual({
      healthy: true,
      problems: [],
      redis: 'ok',
      stateDb: 'ok',
      heartbeatAgeMs: 5000,
      paused: null,
      disk: { path: sandbox.dataDir, freeBytes: expect.any(Number), full: false, since: null },
      checkedAt: new Date(NOW).toISOString(),
    });

    beat(NOW - HEARTBEAT_STALE_MS - 30_000);
    res = await get('/healthz');
    expect(res.status).toBe(503);
    const report = JSON.parse(res.text);
    expect(report.problems).toEqual(['daemon: last heartbeat 90 s ago']);
    expect(report.heartbeatAgeMs).toBe(HEARTBEAT_STALE_MS + 30_000);

    // Dated a day ahead of the clock (which went back since): it says nothing of a running daemon.
    beat(NOW + 86_400_000);
    res = await get('/healthz');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text)).toMatchObject({
      problems: ['daemon: last heartbeat dated 24 h ahead of this clock, which went back since'],
      heartbeatAgeMs: -86_400_000,
    });

    expect((await get('/nope')).status).toBe(404);
    expect((await get('/healthz', { method: 'POST' })).status).toBe(405);
  });

  it('/livez is 200 while the heartbeat is recent, whatever Redis does, and 503 once it is old', async () => {
    config = loadConfig({
      env: { SYNC_DATA_DIR: sandbox.dataDir, REDIS_URL: 'redis://127.0.0.1:1' },
    });
    const { get } = await start({ queues: false });
    expect((await get('/livez')).status).toBe(503);
    beat(NOW - 5000);
    let res = await get('/livez');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({
      live: true,
      heartbeatAgeMs: 5000,
      disk: { path: sandbox.dataDir, full: false },
    });
    // /healthz is 503 meanwhile: Redis does not answer. Not a reason to restart the daemon.
    expect((await get('/healthz')).status).toBe(503);
    beat(NOW - HEARTBEAT_STALE_MS - 30_000);
    res = await get('/livez');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text)).toMatchObject({ live: false, reason: 'no heartbeat for 90 s' });
  });

  it('checks Redis over a connection of its own without queues, and is 503 when Redis is gone', async () => {
    beat(NOW);
    const { get } = await start({ queues: false });
    expect((await get('/healthz')).status).toBe(200);

    config = loadConfig({
      env: { SYNC_DATA_DIR: sandbox.dataDir, REDIS_URL: 'redis://127.0.0.1:1' },
    });
    const down = await start({ queues: false });
    const res = await down.get('/healthz');
    expect(res.status).toBe(503);
    const report = JSON.parse(res.text);
    expect(report.redis).toBe('error');
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatch(/^redis: .*ECONNREFUSED/);
  });
});

describe('with the daemon queues on a Redis that does not answer', () => {
  it('is 503 on /healthz and shows redis_up 0 on /metrics, each within the timeout', async () => {
    beat(NOW);
    // Like the daemon's own connection: commands wait for a Redis that may come back.
    const deadConnection = redisConnection('redis://127.0.0.1:1');
    deadConnection.on('error', () => {});
    const deadQueues = createQueues(deadConnection, sandbox.prefix, () => () => {}); // expected
    const captured = captureLog();
    const server = await startHttpServer({
      port: 0,
      host: '127.0.0.1',
      db,
      config,
      queues: deadQueues,
      log: captured.log,
      now: () => NOW,
    });
    try {
      const url = `http://127.0.0.1:${server.port}`;
      const started = Date.now();
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(503);
      const report = (await health.json()) as { problems: string[] };
      expect(report.problems).toEqual(['redis: redis query timed out after 2000 ms']);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(sample(metrics, 'supplier_sync_redis_up')).toBe(0);
      expect(metrics).not.toContain('supplier_sync_queue_jobs{');
      expect(sample(metrics, 'supplier_sync_api_budget_limit')).toBe(100);
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      await server.close();
      deadConnection.disconnect();
      await closeQueues(deadQueues);
    }
  });
});

describe('/metrics', () => {
  it('shows the gauges read from state.db and the queues at scrape time', async () => {
    // 7 calls in the last hour, 2 older ones that no longer count.
    const calls = new CallLog(db);
    for (let i = 0; i < 7; i++) calls.record(NOW - i * MIN, 'stock');
    calls.record(NOW - 61 * MIN, 'stock');
    calls.record(NOW - 2 * 3_600_000, 'shipments');
    // 3 factory and 2 DC differences pending, the oldest 90 minutes old.
    const pending = new PendingStock(db);
    pending.mark(
      ['A', 'B', 'C'].map((sku) => ({ kind: 'factory' as const, dc: '', sku })),
      NOW - 90 * MIN,
    );
    pending.mark(
      ['A', 'B'].map((sku) => ({ kind: 'dc' as const, dc: 'DC1', sku })),
      NOW - 10 * MIN,
    );
    // 2 stock failures, one "Product not found".
    const failures = new StockFailures(db);
    const retry = { baseMs: MIN, maxMs: 60 * MIN, notFoundMs: 360 * MIN };
    failures.record({ kind: 'factory', dc: '', sku: 'X', quantity: 1 }, 'bad', false, NOW, retry);
    failures.record(
      { kind: 'factory', dc: '', sku: 'Y', quantity: 2 },
      'Product not found',
      true,
      NOW,
      retry,
    );
    // 2 confirmations pending, one confirmed, then a conflict (that order, another tracking number).
    const conf = (order: string, tracking: string, line: number) => ({
      orderNumber: order,
      action: 'shipped' as const,
      carrier: 'DHL',
      trackingNumber: tracking,
      isCollected: false,
      line,
    });
    const [, , done] = storeConfirmations(
      db,
      [conf('O1', 'T1', 1), conf('O2', 'T2', 2), conf('O3', 'T3', 3)],
      { fileId: null, now: NOW },
    );
    new ConfirmationSends(db).confirmed(done!.id, NOW);
    storeConfirmations(db, [conf('O3', 'T9', 4)], { fileId: null, now: NOW });
    const kv = new KeyValueStore(db);
    kv.set('last.push_success', NOW - 70 * MIN);
    kv.set('last.ingest', { at: NOW - 5 * MIN, file: 'a.csv', outcome: 'processed' });
    kv.set('reconcile.last', {
      at: NOW - 600 * MIN,
      ms: 1000,
      rowsRead: 10,
      differences: 0,
      unknownSkus: 0,
    });
    beat(NOW - 4000);
    await queues.push.add('push', { reason: 'test' });
    await queues.shipments.add('shipments', { task: 'poll', reason: 'test' }, { delay: 60_000 });

    const { get } = await start();
    const res = await get('/metrics');
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const t = res.text;
    expect(t).toContain('# TYPE supplier_sync_api_calls_last_hour gauge');
    expect(sample(t, 'supplier_sync_api_calls_last_hour')).toBe(7);
    expect(sample(t, 'supplier_sync_api_budget_limit')).toBe(100);
    expect(sample(t, 'supplier_sync_api_budget_remaining{lane="shipments"}')).toBe(93);
    expect(sample(t, 'supplier_sync_api_budget_remaining{lane="stock"}')).toBe(83);
    expect(sample(t, 'supplier_sync_api_budget_remaining{lane="operator"}')).toBe(83);
    expect(sample(t, 'supplier_sync_api_budget_remaining{lane="reconcile"}')).toBe(63);
    expect(sample(t, 'supplier_sync_pending_differences{kind="factory"}')).toBe(3);
    expect(sample(t, 'supplier_sync_pending_differences{kind="dc"}')).toBe(2);
    expect(sample(t, 'supplier_sync_pending_oldest_age_seconds')).toBe(90 * 60);
    expect(sample(t, 'supplier_sync_stock_failures')).toBe(2);
    expect(sample(t, 'supplier_sync_stock_failures_not_found')).toBe(1);
    expect(sample(t, 'supplier_sync_confirmations{state="pending"}')).toBe(2);
    expect(sample(t, 'supplier_sync_confirmations{state="failed"}')).toBe(0);
    expect(sample(t, 'supplier_sync_confirmations{state="conflict"}')).toBe(1);
    const ts = (task: string) =>
      sample(t, `supplier_sync_last_success_timestamp_seconds{task="${task}"}`);
    expect(ts('push')).toBe((NOW - 70 * MIN) / 1000);
    expect(ts('ingest')).toBe((NOW - 5 * MIN) / 1000);
    expect(ts('reconcile')).toBe((NOW - 600 * MIN) / 1000);
    expect(ts('poll')).toBeUndefined(); // never polled: no sample rather than a fake 0
    expect(sample(t, 'supplier_sync_heartbeat_age_seconds')).toBe(4);
    expect(sample(t, 'supplier_sync_login_blocked')).toBe(0);
    // 90 min of pending differences, the last push 70 min ago, limit 60 min.
    expect(sample(t, 'supplier_sync_sync_stale')).toBe(1);
    expect(sample(t, 'supplier_sync_redis_up')).toBe(1);
    expect(sample(t, 'supplier_sync_queue_jobs{queue="push",state="waiting"}')).toBe(1);
    expect(sample(t, 'supplier_sync_queue_jobs{queue="shipments",state="delayed"}')).toBe(1);
    expect(sample(t, 'supplier_sync_queue_jobs{queue="ingest",state="waiting"}')).toBe(0);
    // No default process metrics: a private registry with only ours.
    expect(t).not.toContain('process_cpu');
    for (const line of t.split('\n').filter((l) => l !== '' && !l.startsWith('#')))
      expect(line).toMatch(/^supplier_sync_/);
  });

  it('reads state.db again on its timer', async () => {
    let now = NOW;
    const { get } = await start({ queues: false, now: () => now, metricsEveryMs: 20 });
    let t = (await get('/metrics')).text;
    /** The metrics once the timer has read state.db at `at`. */
    const refreshedAt = (at: number, what: string) =>
      waitUntil(
        async () => {
          const text = (await get('/metrics')).text;
          return sample(text, 'supplier_sync_metrics_refreshed_timestamp_seconds') === at / 1000
            ? text
            : undefined;
        },
        { message: what },
      );
    expect(sample(t, 'supplier_sync_api_calls_last_hour')).toBe(0);
    expect(sample(t, 'supplier_sync_pending_differences{kind="factory"}')).toBe(0);
    expect(sample(t, 'supplier_sync_pending_oldest_age_seconds')).toBeUndefined();
    expect(sample(t, 'supplier_sync_heartbeat_age_seconds')).toBeUndefined();
    expect(sample(t, 'supplier_sync_sync_stale')).toBe(0);
    expect(t).not.toContain('supplier_sync_queue_jobs');

    new CallLog(db).record(NOW, 'shipments');
    new PendingStock(db).mark([{ kind: 'factory', dc: '', sku: 'A' }], NOW);
    setLoginBlock(db, 'ops@example.com', 'secret', 401, NOW);
    beat(NOW);
    now = NOW + 30_000;
    t = await refreshedAt(now, 'a refresh after the change');
    expect(sample(t, 'supplier_sync_api_calls_last_hour')).toBe(1);
    expect(sample(t, 'supplier_sync_pending_differences{kind="factory"}')).toBe(1);
    expect(sample(t, 'supplier_sync_pending_oldest_age_seconds')).toBe(30);
    expect(sample(t, 'supplier_sync_heartbeat_age_seconds')).toBe(30);
    expect(sample(t, 'supplier_sync_login_blocked')).toBe(1);
    expect(t).not.toContain('secret');

    now = NOW + 3_600_000 + 1; // the call leaves the window
    t = await refreshedAt(now, 'a refresh after the hour');
    expect(sample(t, 'supplier_sync_api_calls_last_hour')).toBe(0);
    expect(sample(t, 'supplier_sync_sync_stale')).toBe(1);
  });

  it('serves scrapes from the figures of its timer: a burst of scrapes reads nothing of state.db', async () => {
    // Issue #28: a status read takes milliseconds on a large state.db, and each scrape ran one
    // (400 scrapes held the event loop for seconds). Every statement on this connection is seen.
    let selects = 0;
    const watched = new Database(join(sandbox.dataDir, 'state.db'), {
      verbose: (sql) => {
        if (/^\s*(SELECT|WITH)/i.test(String(sql))) selects++;
      },
    });
    try {
      beat(NOW);
      const { get } = await start({ queues: false, db: watched, metricsEveryMs: 3_600_000 });
      const first = await get('/metrics');
      expect(sample(first.text, 'supplier_sync_heartbeat_age_seconds')).toBe(0);
      const oneRead = selects;
      expect(oneRead).toBeGreaterThan(0);
      const texts = await Promise.all(Array.from({ length: 100 }, () => get('/metrics')));
      expect(texts.every((r) => r.status === 200 && r.text === first.text)).toBe(true);
      expect(selects).toBe(oneRead);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
      servers = [];
      watched.close();
    }
  });

  it('names the build: supplier_sync_build_info with the version --version prints', async () => {
    beat(NOW);
    const { get } = await start({ queues: false });
    const { text } = await get('/metrics');
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'));
    expect(
      sample(
        text,
        `supplier_sync_build_info{version="${pkg.version}",node="${process.versions.node}"}`,
      ),
    ).toBe(1);
    expect(text).toMatch(/# HELP supplier_sync_build_info /);
  });

  it('runs several servers side by side, each with its own registry', async () => {
    beat(NOW);
    const a = await start();
    const b = await start({ queues: false });
    expect(a.server.port).not.toBe(b.server.port);
    const [ra, rb] = await Promise.all([a.get('/metrics'), b.get('/metrics')]);
    expect(sample(ra.text, 'supplier_sync_api_budget_limit')).toBe(100);
    expect(sample(rb.text, 'supplier_sync_api_budget_limit')).toBe(100);
    await a.server.close();
    await expect(a.get('/healthz')).rejects.toThrow();
    expect((await b.get('/healthz')).status).toBe(200);
  });
});
