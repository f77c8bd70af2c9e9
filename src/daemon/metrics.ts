import { Gauge, Registry } from 'prom-client';
import { readLoginBlock } from '../api/auth/loginBlock.ts';
import type { Lane } from '../api/budget/plan.ts';
import { type BudgetSettings, budgetStatus } from '../api/budget/store.ts';
import type { Config } from '../config/index.ts';
import { LAST_INGEST_KEY } from '../jobs/processors/ingest.ts';
import { type QueueName, type Queues, queueDepths } from '../jobs/queues.ts';
import { LAST_POLL_KEY } from '../shipments/poll.ts';
import { ConfirmationSends } from '../state/confirmationSends.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { PendingStock } from '../state/pendingStock.ts';
import { StockFailures } from '../state/stockFailures.ts';
import { LAST_RECONCILE_KEY } from '../sync/reconcile.ts';
import { withTimeout } from './healthCheck.ts';
import { readHeartbeat } from './heartbeat.ts';
import { checkStale, LAST_PUSH_SUCCESS_KEY } from './staleWatch.ts';

/** What the metrics say, read from state.db at one moment; plain data. */
export interface OpsSnapshot {
  readonly callsLastHour: number;
  readonly budgetLimit: number;
  readonly budgetRemaining: Readonly<Record<Lane, number>>;
  readonly pending: { readonly factory: number; readonly dc: number };
  /** Epoch ms of the oldest pending difference; null when none. */
  readonly pendingSince: number | null;
  readonly stockFailures: { readonly total: number; readonly notFound: number };
  readonly confirmations: {
    readonly pending: number;
    readonly failed: number;
    readonly conflicts: number;
  };
  /** Epoch ms of the last push that sent something, file ingested, full reconcile, poll. */
  readonly lastSuccess: Readonly<Record<'push' | 'ingest' | 'reconcile' | 'poll', number | null>>;
  /** Epoch ms of the daemon's last heartbeat; null when there is none. */
  readonly heartbeatAt: number | null;
  readonly loginBlocked: boolean;
  /** Pending differences and no successful push for SYNC_STALE_AFTER_MS (see checkStale). */
  readonly stale: boolean;
}

const atOf = (v: unknown): number | null => {
  if (typeof v === 'number') return v;
  if (typeof v === 'object' && v !== null && 'at' in v && typeof v.at === 'number') return v.at;
  return null;
};

/** Reads everything /metrics shows from state.db (no Redis, no writes). */
export function readOpsSnapshot(db: StateDb, config: MetricsSettings, now: number): OpsSnapshot {
  const kv = new KeyValueStore(db);
  const pending = new PendingStock(db);
  const b = budgetStatus(db, config, now);
  const c = new ConfirmationSends(db).counts(new Date(now).setUTCHours(0, 0, 0, 0));
  return {
    callsLastHour: b.usedLastHour,
    budgetLimit: b.limit,
    budgetRemaining: b.remainingByLane,
    pending: pending.counts(),
    pendingSince: pending.oldestSince(),
    stockFailures: new StockFailures(db).count(),
    confirmations: { pending: c.pending, failed: c.failed, conflicts: c.conflicts },
    lastSuccess: {
      push: atOf(kv.get(LAST_PUSH_SUCCESS_KEY)),
      ingest: atOf(kv.get(LAST_INGEST_KEY)),
      reconcile: atOf(kv.get(LAST_RECONCILE_KEY)),
      poll: atOf(kv.get(LAST_POLL_KEY)),
    },
    heartbeatAt: readHeartbeat(db)?.at ?? null,
    loginBlocked: readLoginBlock(db) !== undefined,
    stale: checkStale(db, config.staleAfterMs, now).stale,
  };
}

/** The settings /metrics reads (a frozen Config satisfies this). */
export type MetricsSettings = BudgetSettings & Pick<Config, 'staleAfterMs'>;

export interface MetricsDeps {
  readonly db: StateDb;
  readonly config: MetricsSettings;
  /** When given, queue depths per queue and state are shown (and whether Redis answered). */
  readonly queues?: Queues | undefined;
  readonly now?: () => number;
  /** The longest a scrape waits for Redis, in milliseconds. */
  readonly redisTimeoutMs?: number;
}

export interface Metrics {
  /** The private registry (never the global default one, so several can live in one process). */
  readonly registry: Registry;
  readonly contentType: string;
  /** Reads state.db (and Redis) now and renders the Prometheus text format. */
  render(): Promise<string>;
}

const P = 'supplier_sync_';

/** Gauges for Prometheus, filled on every scrape from state.db and, when given, the queues. */
export function createMetrics(deps: MetricsDeps): Metrics {
  const { db, config, queues } = deps;
  const now = deps.now ?? Date.now;
  const registry = new Registry();
  const gauge = <L extends string = never>(name: string, help: string, labelNames: L[] = []) =>
    new Gauge<L>({ name: P + name, help, labelNames, registers: [registry] });

  const calls = gauge(
    'api_calls_last_hour',
    'Portal calls (all but login) in the last rolling hour.',
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
  const pending = gauge('pending_differences', 'Stock keys waiting to be pushed.', ['kind']);
  const pendingAge = gauge(
    'pending_oldest_age_seconds',
    'Age of the oldest pending stock difference; absent when nothing is pending.',
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
  const redisUp = queues
    ? gauge('redis_up', '1 when Redis answered the queue-depth query of this scrape.')
    : undefined;
  const queueJobs = queues
    ? gauge('queue_jobs', 'BullMQ jobs per queue and state.', ['queue', 'state'])
    : undefined;

  async function update(): Promise<void> {
    const t = now();
    const s = readOpsSnapshot(db, config, t);
    calls.set(s.callsLastHour);
    limit.set(s.budgetLimit);
    remaining.reset();
    for (const [lane, n] of Object.entries(s.budgetRemaining)) remaining.set({ lane }, n);
    loginBlocked.set(s.loginBlocked ? 1 : 0);
    pending.reset();
    pending.set({ kind: 'factory' }, s.pending.factory);
    pending.set({ kind: 'dc' }, s.pending.dc);
    if (s.pendingSince === null) pendingAge.remove();
    else pendingAge.set(Math.max(0, t - s.pendingSince) / 1000);
    failures.set(s.stockFailures.total);
    notFound.set(s.stockFailures.notFound);
    confirmations.reset();
    confirmations.set({ state: 'pending' }, s.confirmations.pending);
    confirmations.set({ state: 'failed' }, s.confirmations.failed);
    confirmations.set({ state: 'conflict' }, s.confirmations.conflicts);
    lastSuccess.reset();
    for (const [task, at] of Object.entries(s.lastSuccess))
      if (at !== null) lastSuccess.set({ task }, at / 1000);
    stale.set(s.stale ? 1 : 0);
    if (s.heartbeatAt === null) heartbeatAge.remove();
    else heartbeatAge.set(Math.max(0, t - s.heartbeatAt) / 1000);

    if (queues && queueJobs && redisUp) {
      queueJobs.reset();
      try {
        const depths = await withTimeout(
          queueDepths(queues),
          deps.redisTimeoutMs ?? 2000,
          'queue depths',
        );
        for (const [queue, counts] of Object.entries(depths) as [
          QueueName,
          Record<string, number>,
        ][])
          for (const [state, n] of Object.entries(counts)) queueJobs.set({ queue, state }, n);
        redisUp.set(1);
      } catch {
        redisUp.set(0);
      }
    }
  }

  // Scrapes run one after the other: each resets and refills the same gauges.
  let last: Promise<unknown> = Promise.resolve();
  return {
    registry,
    contentType: registry.contentType,
    render() {
      const next = last.then(async () => {
        await update();
        return registry.metrics();
      });
      last = next.catch(() => {});
      return next;
    },
  };
}
