import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ActionDeps } from '../actions/operator.ts';
import type { Config } from '../config/index.ts';
import { oneAtATime } from '../domain/timeout.ts';
import { type Queues, queueDepths } from '../jobs/queues.ts';
import type { RedisWatch } from '../jobs/redisWatch.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { assess } from './assess.ts';
import { ConsoleAuth, consoleMode } from './console/consoleAuth.ts';
import { createConsole } from './console/routes.ts';
import { checkHealth, pingRedisUrl } from './healthCheck.ts';
import { checkLive } from './liveCheck.ts';
import { readLiveFacts } from './liveFacts.ts';
import { createMetrics } from './metrics.ts';
import {
  assertRedisUp,
  type LiveFacts,
  readQueueDepths,
  readStatus,
  type StatusSettings,
} from './status.ts';
import { healthView } from './views.ts';

export interface HttpServerOptions {
  /** TCP port; 0 picks a free one (the returned `port` says which). */
  readonly port: number;
  /** Interface to listen on (HTTP_HOST: 127.0.0.1 by default, 0.0.0.0 in the image); all when omitted. */
  readonly host?: string | undefined;
  readonly db: StateDb;
  readonly config: StatusSettings &
    Pick<
      Config,
      | 'redisUrl'
      | 'redisCluster'
      | 'dataDir'
      | 'stockRulesFile'
      | 'maxSkuLength'
      | 'inboxMaxRecordBytes'
    > &
    Partial<Pick<Config, 'consoleTrustedProxies'>>;
  /**
   * The console password (CONSOLE_PASSWORD_FILE's content): the console asks for it and takes
   * actions. Without it the console is read-only on a loopback listener, and off on any other.
   */
  readonly consolePassword?: string | undefined;
  /** How the console's actions ask the running daemon for work (its nudges); none: not asked. */
  readonly nudge?: ActionDeps['nudge'] | undefined;
  /** How long a wrong console password holds the login lane (tests shorten it). */
  readonly loginFailureDelayMs?: number | undefined;
  /** The daemon's queues: Redis is checked over their connection and /metrics shows their depths. */
  readonly queues?: Queues | undefined;
  /**
   * Whether the queues' connection is up (the daemon's RedisWatch). While it is down, /healthz
   * and /metrics say so at once and send nothing: a command sent then would wait in the
   * connection for Redis, one more on every scrape.
   */
  readonly redis?: Pick<RedisWatch, 'state'> | undefined;
  readonly log: Logger;
  readonly now?: () => number;
  /** How often /metrics' figures are read afresh (METRICS_REFRESH_MS by default). */
  readonly metricsEveryMs?: number;
  /**
   * The running daemon's own beat and disk (its disk watch, in memory: state.db may be what
   * cannot be written); without it they are read as a command reads them (liveFacts.ts).
   */
  readonly live?: (() => LiveFacts) | undefined;
}

export interface HttpServer {
  readonly port: number;
  /** Reads /metrics' figures afresh now, as its timer would next; resolves once they are read. */
  refreshMetrics(): Promise<void>;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * The optional operations endpoint (HTTP_PORT > 0):
 * - `GET /healthz`: 200 and the health report as JSON when the disk is not full, Redis answers,
 *   state.db reads and the heartbeat is recent; 503 and the same JSON (with `problems`) otherwise
 *   (`supplier-sync health`'s check: readiness);
 * - `GET /livez`: 200 and the liveness report while the daemon's heartbeat is recent (its event
 *   loop runs: it answers this), whatever the disk, Redis or the portal; 503 otherwise
 *   (`supplier-sync health --live`'s check, in the process that holds the writer lock: liveness);
 * - `GET /metrics`: Prometheus text format, gauges read from state.db (and the queues) on a timer
 *   (every few seconds), never per scrape.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const { db, config, queues, log, redis } = options;
  const now = options.now ?? Date.now;
  const live = async (): Promise<LiveFacts> =>
    options.live?.() ?? (await readLiveFacts(config.dataDir, now()));
  const metrics = createMetrics({
    db,
    config,
    queues,
    redis,
    now,
    live,
    everyMs: options.metricsEveryMs,
    onError: (err) => log.warn({ event: 'metrics.failed', err }, 'could not read the metrics'),
  });
  // Over the daemon's own connection when there is one: the cheapest query its queues make, one
  // at a time (a query Redis has not answered yet is waited for again, never sent twice).
  const queryRedis = queues
    ? oneAtATime(() => queues.shipments.getJobCounts('waiting'), 2000, 'redis query')
    : null;
  // The console's status page: queue depths one query at a time too.
  const queryDepths = queues
    ? oneAtATime(() => queueDepths(queues), 2000, 'queue depths')
    : undefined;
  const pingRedis = async () => {
    if (queryRedis === null) return pingRedisUrl(config);
    assertRedisUp(redis);
    await queryRedis();
  };

  const mode = consoleMode(options.host, options.consolePassword);
  const web = createConsole({
    db,
    config,
    mode,
    auth:
      options.consolePassword === undefined
        ? undefined
        : new ConsoleAuth({
            password: options.consolePassword,
            now,
            log,
            registry: metrics.registry,
            failureDelayMs: options.loginFailureDelayMs,
            trustedProxies: config.consoleTrustedProxies,
          }),
    status: async () => {
      const queueDepths = queues
        ? await readQueueDepths(queues, 2000, redis, queryDepths)
        : { error: 'no queues' };
      const facts = await live();
      const status = { ...readStatus(db, config, now(), facts), queues: queueDepths };
      const health = assess({
        status,
        redisError: 'error' in queueDepths ? queueDepths.error : undefined,
      });
      return { status, health };
    },
    actions: { db, config, now, log, nudge: options.nudge ?? (async () => false) },
    log,
    now,
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/healthz' && path !== '/livez' && path !== '/metrics')
      return web.handle(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' });
      res.end('method not allowed\n');
      return;
    }
    if (path === '/healthz') {
      const facts = await live();
      const report = await checkHealth({
        pingRedis,
        readStatus: () => readStatus(db, config, now(), facts),
        disk: facts.disk,
        now,
      });
      sendReport(res, req, report.healthy, report);
      return;
    }
    if (path === '/livez') {
      const facts = await live();
      const report = checkLive({
        // Its own beat (in memory in the daemon), and state.db's.
        beats: [facts.beat, new KeyValueStore(db).get('daemon.heartbeat') ?? null],
        disk: facts.disk,
        lock: () => ({ held: true, daemon: true }),
        now: now(),
      });
      sendReport(res, req, report.live, report);
      return;
    }
    if (path === '/metrics') {
      send(res, req, 200, metrics.contentType, await metrics.render());
      return;
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.warn({ event: 'http.error', path: req.url, err }, 'operations endpoint failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port, host: options.host }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => log.warn({ event: 'http.error', err }, 'operations endpoint error'));
  const port = (server.address() as AddressInfo).port;
  log.info(
    { event: 'http.listening', port, host: options.host ?? '*', console: mode },
    `HTTP server on port ${port}: /healthz, /metrics, the console at / (${mode === 'off' ? 'off' : mode})`,
  );
  if (mode === 'off')
    log.warn(
      { event: 'console.off', host: options.host ?? '*' },
      'the console is off: without CONSOLE_PASSWORD_FILE it is served only when HTTP_HOST is a loopback address',
    );

  let closed: Promise<void> | undefined;
  return {
    port,
    refreshMetrics: () => metrics.refresh(),
    close() {
      metrics.stop();
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** A health or liveness report as JSON: 200 when it passes, 503 when it does not. */
function sendReport(res: ServerResponse, req: IncomingMessage, ok: boolean, report: object): void {
  send(res, req, ok ? 200 : 503, 'application/json', JSON.stringify(healthView(report)));
}

function send(
  res: ServerResponse,
  req: IncomingMessage,
  status: number,
  type: string,
  body: string,
): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
