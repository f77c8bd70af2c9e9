import {
  BatchSizes,
  type BudgetSettings,
  type BudgetStatus,
  budgetStatus,
  type ForeignLogins,
  HOUR_MS,
  LANES,
  type Lane,
  laneReserve,
  readForeignLogins,
  readLoginBlock,
  whenCallsDone,
} from '../api/index.ts';
import type { Config } from '../config/index.ts';
import type { DiskState } from '../domain/diskState.ts';
import { startOfLocalDay } from '../domain/localTime.ts';
import type { StockKind } from '../domain/stock.ts';
import { withTimeout } from '../domain/timeout.ts';
import { type QueueName, type Queues, queueDepths } from '../jobs/queues.ts';
import type { RedisWatch } from '../jobs/redisWatch.ts';
import { overdueShipments } from '../shipments/index.ts';
import { AuthStore } from '../state/calls/authStore.ts';
import { CallLog } from '../state/calls/callLog.ts';
import type { StateDb } from '../state/db.ts';
import { FileHistory, type FileWindow } from '../state/inbox/fileHistory.ts';
import { HeldStore } from '../state/inbox/heldStore.ts';
import { KeyValueStore } from '../state/kv.ts';
import { type Heartbeat, type KvValue, kvKey, type ReconcilePass } from '../state/kvKeys.ts';
import { NotifyOutbox, type OutboxDepth } from '../state/notify/notifyOutbox.ts';
import { Catalogue } from '../state/products/catalogueStore.ts';
import { ProductDecisions, type RecentlyDeclined } from '../state/products/productDecisions.ts';
import { ProductRequests } from '../state/products/productRequests.ts';
import { ConfirmationSends } from '../state/shipments/confirmationSends.ts';
import { ShipmentStore } from '../state/shipments/shipmentStore.ts';
import { type UnfinishedApply, unfinishedApplies } from '../state/staging/stagedApplyTable.ts';
import { PendingStock } from '../state/stock/pendingStock.ts';
import { StockFailures } from '../state/stock/stockFailures.ts';
import { readTotals } from '../sync/index.ts';
import { type PollSchedule, pollSchedule } from './pollSchedule.ts';
import { checkStale } from './staleWatch.ts';

/** The settings the status read needs (a frozen Config satisfies this). */
export type StatusSettings = BudgetSettings &
  Pick<
    Config,
    | 'staleAfterMs'
    | 'timezone'
    | 'bulkBatchSize'
    | 'shipmentsDeadline'
    | 'reconcileMinIntervalMs'
    | 'shipmentsPollCron'
  >;

/** A pass of a kind in progress, as `status` shows it. */
export interface PassInProgress {
  readonly startedAt: number;
  readonly reason: string;
  readonly pages: number;
  readonly rowsRead: number;
  /** Rows of the whole list, when the portal says (meta.total). */
  readonly total: number | null;
  readonly drift: number;
}

/**
 * The operational status, read from state.db at one moment: plain data. `status`, `status
 * --json`, `/metrics` and `health` all render this one read.
 */
export interface Status {
  /** When it was read (epoch ms). */
  readonly at: number;
  /**
   * The daemon's last heartbeat, in state.db or (fresher while state.db cannot be written) in its
   * heartbeat file or memory (LiveFacts); null when there is none.
   */
  readonly daemon: Heartbeat | null;
  /** The disk holding the data dir and state.db: full or not, where, what is free; null: not looked at. */
  readonly disk: DiskState | null;
  readonly pendingDifferences: {
    readonly factory: number;
    readonly dc: number;
    /** Epoch ms of the oldest pending difference; null when none. */
    readonly oldestSince: number | null;
  };
  readonly failures: {
    readonly stock: { readonly total: number; readonly notFound: number };
    readonly confirmations: {
      readonly pending: number;
      /** Confirmed since local midnight (SYNC_TIMEZONE). */
      readonly confirmedToday: number;
      readonly failed: number;
      readonly conflicts: number;
    };
  };
  readonly budget: BudgetStatus;
  /** Calls of the last rolling hour per lane (shipments, operator, stock, reconcile). */
  readonly callsByLane: Readonly<Record<Lane, number>>;
  /**
   * Bulk calls the pending differences need at the batch size the client sends now, and when the
   * last of them can go given the stock lane's share of the rolling hour (null: nothing pending).
   */
  readonly eta: { readonly calls: number; readonly at: number | null };
  readonly token: { readonly obtainedAt: number; readonly ageMs: number } | null;
  readonly loginBlock: {
    readonly at: number;
    readonly status: number;
    readonly account: string;
  } | null;
  /** Token invalidations after good calls (another client logged in) over the last hour. */
  readonly foreignLogins: ForeignLogins;
  readonly shipments: {
    readonly open: number;
    readonly exported: number;
    readonly awaitingConfirmation: number;
    /** SHIPMENTS_DEADLINE, or null when unset. */
    readonly deadline: string | null;
    /** Handed over today and unconfirmed after today's deadline; null before it or without one. */
    readonly overdue: readonly string[] | null;
  };
  /** The last run of each task, as recorded; null when never. */
  readonly last: {
    readonly ingest: KvValue<'last.ingest'> | null;
    readonly push: KvValue<'last.push'> | null;
    /** Epoch ms of the last push that sent something. */
    readonly pushSuccess: number | null;
    readonly reconcile: KvValue<'reconcile.last'> | null;
    readonly poll: KvValue<'shipments.last_poll'> | null;
  };
  /** The ready-to-ship poll's schedule: overdue by more than two intervals, or on time. */
  readonly polls: PollSchedule;
  /** Pending differences and no successful push for SYNC_STALE_AFTER_MS (sync.stale). */
  readonly stale: boolean;
  /**
   * Inbox files handled in the last 24 hours (FILES_WINDOW_MS): counts by outcome, rows rejected,
   * and the files that failed or were processed with rejected rows (`files` lists them all).
   */
  readonly files: FileWindow;
  /** Notifications still to be delivered to NOTIFY_WEBHOOK_URL (the outbox in state.db). */
  readonly notifications: OutboxDepth;
  /**
   * Applies decided but not merged to the end: one being merged now, or one an interrupted writer
   * left (the daemon finishes it at its start and at its periodic check, every 30 s).
   */
  readonly unfinishedApplies: readonly UnfinishedApply[];
  /** Pushes paused by an operator (`pause`): since when and why; null when not paused. */
  readonly paused: { readonly since: number; readonly reason: string | null } | null;
  /** What the guard rails hold until an operator decides (`held`, `release`, `reject`). */
  readonly held: {
    readonly files: number;
    readonly snapshots: number;
    /** Epoch ms of the oldest held entry; null when nothing is held. */
    readonly oldestAt: number | null;
  };
  /** The products the daemon created and the platform's review of them. */
  readonly products: ProductsStatus;
  /** Re-reading the portal: when each kind was last fully read, what is being read now. */
  readonly reconcile: {
    /** RECONCILE_MIN_INTERVAL_MS (0: idle re-reading off). */
    readonly minIntervalMs: number;
    /** The last complete pass of each kind (its `completedAt`: last fully read); null: never. */
    readonly lastFullRead: Readonly<Record<StockKind, ReconcilePass | null>>;
    readonly inProgress: Readonly<Record<StockKind, PassInProgress | null>>;
    /** Keys found drifted (changed behind the daemon's back) since state.db was created. */
    readonly driftedKeys: Readonly<Record<StockKind, number>>;
  };
}

/** How long a product the platform declined makes `status` degraded, naming it. */
export const DECLINED_SHOWN_MS = 7 * 24 * 3_600_000;
/** Most declined products a status names. */
const DECLINED_NAMED = 10;

export interface ProductsStatus {
  /** Products the daemon created, and those the platform's review has not decided yet. */
  readonly created: number;
  readonly undecided: number;
  /** Declined in the last 7 days and declined still: how many, and the newest few. */
  readonly declined: { readonly count: number; readonly recent: readonly RecentlyDeclined[] };
  /**
   * Products that products files asked for and the daemon has still to create: queued, or sent
   * with no answer recorded yet.
   */
  readonly toCreate: number;
  /** The last complete read of the portal's product list; null: never. */
  readonly catalogueReadAt: number | null;
  /** The products that read found (the portal's catalogue as last read whole); null: never read. */
  readonly catalogueProducts: number | null;
}

function productsStatus(db: StateDb, kv: KeyValueStore, now: number): ProductsStatus {
  const { count, products } = new ProductDecisions(db).declinedSince(
    now - DECLINED_SHOWN_MS,
    DECLINED_NAMED,
  );
  const open = new ProductRequests(db).open();
  const pass = kv.get('catalogue.pass');
  return {
    ...new Catalogue(db).createdCounts(),
    declined: { count, recent: products },
    toCreate: open.queued + open.sending,
    catalogueReadAt: pass?.completedAt ?? null,
    catalogueProducts: pass?.rows ?? null,
  };
}

function passInProgress(kv: KeyValueStore, kind: StockKind): PassInProgress | null {
  const read = kv.get(kvKey.reconcileRead(kind));
  if (!read) return null;
  return {
    startedAt: read.startedAt,
    reason: read.reason ?? 'reconcile',
    pages: read.pages,
    rowsRead: read.rowsRead,
    total: read.total ?? null,
    drift: read.drift ?? 0,
  };
}

/** How far back a failed file or rejected rows count in the status (and the metrics): a day. */
export const FILES_WINDOW_MS = 24 * 3_600_000;

/**
 * What is known of the daemon outside state.db: its last beat and its disk, from its memory (in
 * the daemon) or its heartbeat file and a look at the disk (in a command: liveFacts.ts).
 */
export interface LiveFacts {
  readonly beat: Heartbeat | null;
  readonly disk: DiskState | null;
}

/** The fresher of two heartbeats. */
function fresher(a: Heartbeat | null, b: Heartbeat | null): Heartbeat | null {
  if (a === null || b === null) return a ?? b;
  return b.at > a.at ? b : a;
}

/**
 * Reads the status from state.db (no Redis, no writes), with what `live` knows beside it: the
 * fresher heartbeat wins, and the disk's state is the live one.
 */
export function readStatus(
  db: StateDb,
  settings: StatusSettings,
  now: number,
  live: LiveFacts = { beat: null, disk: null },
): Status {
  const kv = new KeyValueStore(db);
  const pending = new PendingStock(db);
  const token = new AuthStore(db).readToken();
  const stale = checkStale(db, settings.staleAfterMs, now);
  const counts = pending.counts();
  const sizes = new BatchSizes(db, settings.bulkBatchSize);
  const calls =
    Math.ceil(counts.factory / sizes.max('factory')) + Math.ceil(counts.dc / sizes.max('dc'));
  const etaAt = whenCallsDone({
    calls: new CallLog(db).timesSince(now - HOUR_MS),
    limit: settings.requestsPerHour,
    reserve: laneReserve('stock', settings),
    now,
    needed: calls,
  });
  const lastPoll = kv.get('shipments.last_poll') ?? null;
  return {
    at: now,
    daemon: fresher(kv.get('daemon.heartbeat') ?? null, live.beat),
    disk: live.disk,
    pendingDifferences: { ...counts, oldestSince: stale.pendingSince },
    failures: {
      stock: new StockFailures(db).count(),
      confirmations: new ConfirmationSends(db).counts(startOfLocalDay(now, settings.timezone)),
    },
    budget: budgetStatus(db, settings, now),
    callsByLane: callsByLane(db, now),
    eta: { calls, at: etaAt },
    token: token ? { obtainedAt: token.obtainedAt, ageMs: now - token.obtainedAt } : null,
    loginBlock: readLoginBlock(db) ?? null,
    foreignLogins: readForeignLogins(db, now),
    shipments: {
      ...new ShipmentStore(db).counts(),
      deadline: settings.shipmentsDeadline ?? null,
      overdue: overdueShipments(db, now, settings.timezone, settings.shipmentsDeadline),
    },
    last: {
      ingest: kv.get('last.ingest') ?? null,
      push: kv.get('last.push') ?? null,
      pushSuccess: stale.lastPushSuccess,
      reconcile: kv.get('reconcile.last') ?? null,
      poll: lastPoll,
    },
    polls: pollSchedule(settings.shipmentsPollCron, settings.timezone, lastPoll?.at ?? null, now),
    stale: stale.stale,
    files: new FileHistory(db).window(now - FILES_WINDOW_MS),
    unfinishedApplies: unfinishedApplies(db),
    paused: kv.get('sync.paused') ?? null,
    held: new HeldStore(db).counts(),
    notifications: new NotifyOutbox(db).depth(),
    products: productsStatus(db, kv, now),
    reconcile: {
      minIntervalMs: settings.reconcileMinIntervalMs,
      lastFullRead: {
        factory: kv.get(kvKey.reconcilePass('factory')) ?? null,
        dc: kv.get(kvKey.reconcilePass('dc')) ?? null,
      },
      inProgress: { factory: passInProgress(kv, 'factory'), dc: passInProgress(kv, 'dc') },
      driftedKeys: readTotals(db).drift,
    },
  };
}

function callsByLane(db: StateDb, now: number): Record<Lane, number> {
  const counts = new CallLog(db).countByLaneSince(now - HOUR_MS);
  return Object.fromEntries(LANES.map((lane) => [lane, counts[lane] ?? 0])) as Record<Lane, number>;
}

export type QueueDepths = Record<QueueName, Record<string, number>>;

/** Throws `down since <time>: <last error>` while the watched connection is down. */
export function assertRedisUp(redis: Pick<RedisWatch, 'state'> | undefined): void {
  const state = redis?.state();
  if (state === undefined || state.up) return;
  const since = new Date(state.since).toISOString();
  throw new Error(`down since ${since}${state.lastError ? `: ${state.lastError}` : ''}`);
}

/**
 * Job counts per queue, or why Redis did not answer within `timeoutMs`. With `redis` (the
 * daemon's watch) nothing is sent while its connection is down; `depths` may be the query made
 * one at a time (oneAtATime), so that scrapes while Redis hangs never pile up commands.
 */
export async function readQueueDepths(
  queues: Queues,
  timeoutMs: number,
  redis?: Pick<RedisWatch, 'state'>,
  depths: () => Promise<QueueDepths> = () => queueDepths(queues),
): Promise<QueueDepths | { readonly error: string }> {
  try {
    assertRedisUp(redis);
    return await withTimeout(depths(), timeoutMs, 'queue depths');
  } catch (err) {
    return { error: `redis unreachable: ${err instanceof Error ? err.message : String(err)}` };
  }
}
