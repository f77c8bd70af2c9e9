import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ActionDeps } from '../actions/operator.ts';
import type { Config } from '../config/index.ts';
import { oneAtATime } from '../domain/timeout.ts';
import { type Queues, queueDepths } from '../jobs/queues.ts';
import type { RedisWatch } from '../jobs/redisWatch.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { assess } from './assess.ts';
import { ConsoleAuth, consoleMode } from './console/consoleAuth.ts';
import { createConsole } from './console/routes.ts';
import { checkHealth, pingRedisUrl } from './healthCheck.ts';
import { createMetrics } from './metrics.ts';
import { assertRedisUp, readQueueDepths, readStatus, type StatusSettings } from './status.ts';
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
    >;
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
}

export interface HttpServer {
  readonly port: number;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * The optional operations endpoint (HTTP_PORT > 0):
 * - `GET /healthz`: 200 and the health report as JSON when Redis answers, state.db reads and the
 *   heartbeat is recent; 503 and the same JSON (with `problems`) otherwise;
 * - `GET /metrics`: Prometheus text format, gauges read from state.db (and the queues) on a timer
 *   (every few seconds), never per scrape.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const { db, config, queues, log, redis } = options;
  const now = options.now ?? Date.now;
  const metrics = createMetrics({
    db,
    config,
    queues,
    redis,
    now,
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
          }),
    status: async () => {
      const queueDepths = queues
        ? await readQueueDepths(queues, 2000, redis, queryDepths)
        : { error: 'no queues' };
      const status = { ...readStatus(db, config, now()), queues: queueDepths };
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
    if (path !== '/healthz' && path !== '/metrics') return web.handle(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' });
      res.end('method not allowed\n');
      return;
    }
    if (path === '/healthz') {
      const report = await checkHealth({
        pingRedis,
        readStatus: () => readStatus(db, config, now()),
        now,
      });
      send(
        res,
        req,
        report.healthy ? 200 : 503,
        'application/json',
        JSON.stringify(healthView(report)),
      );
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
