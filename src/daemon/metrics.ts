import { Counter, Gauge, Registry } from 'prom-client';
import { VERSION } from '../config/version.ts';
import { oneAtATime } from '../domain/timeout.ts';
import { type Queues, queueDepths } from '../jobs/queues.ts';
import type { RedisWatch } from '../jobs/redisWatch.ts';
import type { StateDb } from '../state/db.ts';
import { FILE_OUTCOMES } from '../state/inbox/fileHistory.ts';
import { notifyMetrics } from './notifyMetrics.ts';
import { productMetrics } from './productMetrics.ts';
import { type LiveFacts, readQueueDepths, readStatus, type StatusSettings } from './status.ts';

export interface MetricsDeps {
  readonly db: StateDb;
  readonly config: StatusSettings;
  /** When given, queue depths per queue and state are shown (and whether Redis answered). */
  readonly queues?: Queues | undefined;
  /** The queues' connection state: while it is down no query is sent (see readQueueDepths). */
  readonly redis?: Pick<RedisWatch, 'state'> | undefined;
  readonly now?: () => number;
  /** The longest a refresh waits for Redis, in milliseconds. */
  readonly redisTimeoutMs?: number;
  /** How often the figures are read afresh, in milliseconds (METRICS_REFRESH_MS by default). */
  readonly everyMs?: number;
  /** A refresh that failed (the figures stay as they were). */
  readonly onError?: (err: unknown) => void;
  /** The daemon's beat and disk beside state.db (the disk gauges); none: not shown. */
  readonly live?: () => Promise<LiveFacts>;
}

export interface Metrics {
  /** The private registry (never the global default one, so several can live in one process). */
  readonly registry: Registry;
  readonly contentType: string;
  /**
   * The figures of the last refresh in the Prometheus text format: no read of state.db or Redis
   * (the first call waits for the first refresh).
   */
  render(): Promise<string>;
  /** Reads state.db (and Redis) now; refreshes run one at a time. */
  refresh(): Promise<void>;
  /** Stops the timer. */
  stop(): void;
}

const P = 'supplier_sync_';

/**
 * How often the figures are read: a scrape (or many) never reads state.db itself. A status read
 * takes milliseconds on a large state.db (18 ms at 270k failures); read per scrape, a burst of
 * scrapes held the event loop for seconds.
 */
export const METRICS_REFRESH_MS = 5000;

/**
 * Gauges for Prometheus, filled from state.db and, when given, the queues, every `everyMs` on a
 * timer of their own (unref'd: it never keeps the process alive); scrapes render the last figures.
 */
export function createMetrics(deps: MetricsDeps): Metrics {
  const { db, config, queues, redis } = deps;
  const redisTimeoutMs = deps.redisTimeoutMs ?? 2000;
  const depthsOnce = queues
    ? oneAtATime(() => queueDepths(queues), redisTimeoutMs, 'queue depths')
    : undefined;
  const now = deps.now ?? Date.now;
  const registry = new Registry();
  const gauge = <L extends string = never>(name: string, help: string, labelNames: L[] = []) =>
    new Gauge<L>({ name: P + name, help, labelNames, registers: [registry] });

  gauge(
    'build_info',
    'Always 1; its labels name the build: version (package.json) and node (the Node.js version).',
    ['version', 'node'],
  ).set({ version: VERSION, node: process.versions.node }, 1);
  const calls = gauge(
    'api_calls_last_hour',
    'Portal calls (all but login) in the last rolling hour.',
  );
  const laneCalls = gauge(
    'api_lane_calls_last_hour',
    'Portal calls (all but login) in the last rolling hour, per budget lane.',
    ['lane'],
  );
  const limit = gauge('api_budget_limit', 'Client-side budget: calls allowed in any rolling hour.');
  const remaining = gauge(
    'api_budget_remaining',
    'Calls each lane may still make now (after the reserves it leaves and the portal hint).',
    ['lane'],
  );
  const loginBlocked = gauge(
    'login_blocked',
    '1 while logins are blocked because the portal refused the credentials (api.login_blocked).',
  );
  const foreignLogins = gauge(
    'foreign_logins_last_hour',
    'Times the portal invalidated a token that had served calls (another client logged in with the account) in the last hour (api.foreign_login).',
  );
  const pending = gauge('pending_differences', 'Stock keys waiting to be pushed.', ['kind']);
  const pendingAge = gauge(
    'pending_oldest_age_seconds',
    'Age of the oldest pending stock difference; absent when nothing is pending.',
  );
  const etaCalls = gauge(
    'eta_calls',
    'Bulk calls the pending stock differences need at the batch size the client sends now.',
  );
  const etaSeconds = gauge(
    'eta_seconds',
    'Seconds until the last of those calls can go at the stock lane budget; absent when nothing is pending.',
  );
  const failures = gauge('stock_failures', 'Stock items the portal rejected, kept for retry.');
  const notFound = gauge(
    'stock_failures_not_found',
    'Stock failures that are "Product not found" (retried slowly, or when reconciliation finds the SKU).',
  );
  const confirmations = gauge(
    'confirmations',
    'Shipment confirmations by state: pending (to send), failed, conflict (operator needed).',
    ['state'],
  );
  const shipments = gauge(
    'shipments',
    'Shipments by state: awaiting_confirmation (handed to the ERP, not confirmed), overdue (handed over today and unconfirmed after SHIPMENTS_DEADLINE).',
    ['state'],
  );
  const lastSuccess = gauge(
    'last_success_timestamp_seconds',
    'Unix time of the last push that sent something, file ingested, complete reconciliation, ready-to-ship poll.',
    ['task'],
  );
  const heartbeatAge = gauge(
    'heartbeat_age_seconds',
    "Age of the daemon's heartbeat in state.db; absent when there is none.",
  );
  const stale = gauge(
    'sync_stale',
    '1 while stock differences are pending with no successful push for SYNC_STALE_AFTER_MS (sync.stale).',
  );
  const held = gauge(
    'held',
    'Stock files and snapshot reads the guard rails hold until an operator releases or rejects them (file.held, snapshot.held).',
    ['source'],
  );
  const paused = gauge(
    'paused',
    '1 while pushes are paused by an operator (pause; resume ends it): nothing is written to the portal.',
  );
  const heldAge = gauge(
    'held_oldest_age_seconds',
    'Age of the oldest held file or snapshot read; absent when nothing is held.',
  );
  const drifted = new Counter({
    name: `${P}drifted_keys_total`,
    help: 'Stock keys a reconciliation found changed on the portal behind the daemon (reconcile.drift), pushed back.',
    labelNames: ['kind'],
    registers: [registry],
  });
  const fullRead = gauge(
    'last_full_read_timestamp_seconds',
    "Unix time each kind's stock was last read whole from the portal; absent when never.",
    ['kind'],
  );
  const files = gauge(
    'files_last_24h',
    'Inbox files handled in the last 24 hours by outcome: processed, failed, held, duplicate, rejected (a held file rejected), released (a held file released, read again as a new file), processing.',
    ['outcome'],
  );
  const rowsRejected = gauge(
    'rows_rejected_last_24h',
    'Rows rejected (bad values) in the inbox files processed or failed in the last 24 hours.',
  );
  const fileProblems = gauge(
    'files_with_problems_last_24h',
    'Inbox files of the last 24 hours that failed or were processed with rejected rows (status is degraded while above 0).',
  );
  const refreshedAt = gauge(
    'metrics_refreshed_timestamp_seconds',
    'Unix time these figures were read from state.db (they are read on a timer, not per scrape).',
  );
  const diskFull = gauge(
    'disk_full',
    '1 while the disk holding the data dir (or state.db) is full: nothing can be recorded.',
    ['path'],
  );
  const diskFree = gauge(
    'disk_free_bytes',
    'Bytes free on the disk holding the data dir (the fullest watched path).',
    ['path'],
  );
  const notifications = notifyMetrics(registry);
  const products = productMetrics(registry);
  const redisUp = queues
    ? gauge('redis_up', '1 when Redis answered the queue-depth query of this scrape.')
    : undefined;
  const queueJobs = queues
    ? gauge('queue_jobs', 'BullMQ jobs per queue and state.', ['queue', 'state'])
    : undefined;

  async function update(): Promise<void> {
    // Redis and the disk first: every gauge is then set in one synchronous stretch, so that a scrape never
    // sees a refresh half done.
    const depths =
      queues && queueJobs && redisUp
        ? await readQueueDepths(queues, redisTimeoutMs, redis, depthsOnce)
        : undefined;
    const facts = await deps.live?.();
    const t = now();
    const s = readStatus(db, config, t, facts);
    calls.set(s.budget.usedLastHour);
    limit.set(s.budget.limit);
    laneCalls.reset();
    for (const [lane, n] of Object.entries(s.callsByLane)) laneCalls.set({ lane }, n);
    remaining.reset();
    for (const [lane, n] of Object.entries(s.budget.remainingByLane)) remaining.set({ lane }, n);
    loginBlocked.set(s.loginBlock ? 1 : 0);
    foreignLogins.set(s.foreignLogins.lastHour);
    pending.reset();
    pending.set({ kind: 'factory' }, s.pendingDifferences.factory);
    pending.set({ kind: 'dc' }, s.pendingDifferences.dc);
    const pendingSince = s.pendingDifferences.oldestSince;
    if (pendingSince === null) pendingAge.remove();
    else pendingAge.set(Math.max(0, t - pendingSince) / 1000);
    etaCalls.set(s.eta.calls);
    if (s.eta.at === null) etaSeconds.remove();
    else etaSeconds.set(Math.max(0, s.eta.at - t) / 1000);
    failures.set(s.failures.stock.total);
    notFound.set(s.failures.stock.notFound);
    confirmations.reset();
    confirmations.set({ state: 'pending' }, s.failures.confirmations.pending);
    confirmations.set({ state: 'failed' }, s.failures.confirmations.failed);
    confirmations.set({ state: 'conflict' }, s.failures.confirmations.conflicts);
    shipments.reset();
    shipments.set({ state: 'awaiting_confirmation' }, s.shipments.awaitingConfirmation);
    shipments.set({ state: 'overdue' }, s.shipments.overdue?.length ?? 0);
    lastSuccess.reset();
    const successes = {
      push: s.last.pushSuccess,
      ingest: s.last.ingest?.at ?? null,
      reconcile: s.last.reconcile?.at ?? null,
      poll: s.last.poll?.at ?? null,
    };
    for (const [task, at] of Object.entries(successes))
      if (at !== null) lastSuccess.set({ task }, at / 1000);
    stale.set(s.stale ? 1 : 0);
    paused.set(s.paused === null ? 0 : 1);
    held.reset();
    held.set({ source: 'file' }, s.held.files);
    held.set({ source: 'snapshot' }, s.held.snapshots);
    if (s.held.oldestAt === null) heldAge.remove();
    else heldAge.set(Math.max(0, t - s.held.oldestAt) / 1000);
    drifted.reset();
    fullRead.reset();
    for (const kind of ['factory', 'dc'] as const) {
      drifted.inc({ kind }, s.reconcile.driftedKeys[kind]);
      const pass = s.reconcile.lastFullRead[kind];
      if (pass !== null) fullRead.set({ kind }, pass.completedAt / 1000);
    }
    if (s.daemon === null) heartbeatAge.remove();
    else heartbeatAge.set(Math.max(0, t - s.daemon.at) / 1000);
    diskFull.reset();
    diskFree.reset();
    if (s.disk !== null) {
      diskFull.set({ path: s.disk.path }, s.disk.full ? 1 : 0);
      if (s.disk.freeBytes !== null) diskFree.set({ path: s.disk.path }, s.disk.freeBytes);
    }

    files.reset();
    for (const outcome of FILE_OUTCOMES) files.set({ outcome }, s.files.counts[outcome]);
    rowsRejected.set(s.files.rowsRejected);
    fileProblems.set(s.files.problemCount);
    notifications(db, t);
    products(s.products, t);
    refreshedAt.set(t / 1000);

    if (depths !== undefined && queueJobs && redisUp) {
      queueJobs.reset();
      if ('error' in depths) redisUp.set(0);
      else {
        for (const [queue, counts] of Object.entries(depths))
          for (const [state, n] of Object.entries(counts)) queueJobs.set({ queue, state }, n);
        redisUp.set(1);
      }
    }
  }

  // One refresh at a time; a tick that finds one running is skipped.
  let running: Promise<void> | undefined;
  const refresh = (): Promise<void> => {
    running ??= update().finally(() => {
      running = undefined;
    });
    return running;
  };
  const failed = (err: unknown) => deps.onError?.(err);
  const first = refresh().catch(failed);
  const timer = setInterval(() => {
    if (running === undefined) refresh().catch(failed);
  }, deps.everyMs ?? METRICS_REFRESH_MS);
  timer.unref();
  return {
    registry,
    contentType: registry.contentType,
    async render() {
      await first;
      // Whether the daemon's connection is up is known without a query: a Redis gone shows at
      // once, not at the next refresh.
      if (redisUp && redis?.state().up === false) redisUp.set(0);
      return registry.metrics();
    },
    refresh,
    stop() {
      clearInterval(timer);
    },
  };
}
