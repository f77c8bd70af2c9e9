import type { StockPortal } from '../api/index.ts';
import type { AppearedProduct } from '../domain/catalogue.ts';
import type { Clock } from '../domain/clock.ts';
import type { RetrySettings } from '../domain/retrySchedule.ts';
import type { StockKind } from '../domain/stock.ts';
import { failurePolicy } from '../failures/failurePolicy.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { PendingStock } from '../state/stock/pendingStock.ts';
import { StockFailures } from '../state/stock/stockFailures.ts';
import { productsAppeared } from './appeared.ts';
import type { ReconcileStep } from './decide/reconcilePlan.ts';
import { establishRemote } from './establish.ts';
import { type PushTotals, pushPending } from './push.ts';
import { readWholeKind } from './readKind.ts';
import { type IdleReadOutcome, nextReconcileStep, readWhileIdle } from './readWhileIdle.ts';
import { startRead } from './reconcile.ts';

/** What the stock sync needs from around it: the portal's stock port, state.db, time, the log. */
export interface StockSyncEdges {
  readonly db: StateDb;
  readonly portal: StockPortal;
  readonly log: Logger;
  readonly clock: Clock;
  /** Aborts on shutdown: pushes and reads stop between calls. */
  readonly signal: AbortSignal;
  /** Back-off of items the portal rejected (FAILURE_BACKOFF_*, NOT_FOUND_RETRY_MS). */
  readonly retry: RetrySettings;
  /** RECONCILE_MIN_INTERVAL_MS: one idle pass of a kind at most this often. */
  readonly reconcileMinIntervalMs: number;
  /**
   * False while the files that were in the inbox at start are not applied yet: no first start
   * is decided before the push sees them (ingestion answers it).
   */
  readonly mayDecideFirstStart?: () => boolean;
}

/** What a read asks of the queues around it, per run (the jobs know them; the sync does not). */
export interface ReadHooks {
  /** True while a push runs or waits to run: reading stops between pages and leaves it the budget. */
  readonly pushDue: () => Promise<boolean>;
  /** A pass ended with keys that differ (now pending): a push is owed. */
  readonly onDifferences: (kind: StockKind, differences: number) => Promise<void>;
}

export type ReadOutcome =
  | IdleReadOutcome
  | { readonly pages: 0; readonly stopped: 'budget'; readonly until: number };

/** Work owed now, as state.db says (the periodic recovery asks for it again). */
export interface StockWorkDue {
  /** Failures whose next attempt has come, made pending again by this look. */
  readonly failuresDue: number;
  readonly pending: { readonly factory: number; readonly dc: number };
  /** A reconciliation pass is due (or in progress). */
  readonly readDue: boolean;
}

/** The stock flow from desired stock to the portal: pushes, first starts, reconciliation. */
export interface StockSync {
  /**
   * Pushes the pending differences (learning the portal's stock first on a first start),
   * recorded as `last.push`. Nothing while pushes are paused (`pause`): the differences stay
   * pending until `resume` asks again; a pause during a push stops it after the batch in flight.
   */
  push(reason: string): Promise<PushTotals>;
  /**
   * The reconciliation lane: with a schedule's `slot`, starts a full pass of both kinds first;
   * then reads page by page what is due, stopping between pages for a push. A spent share of the
   * budget ends the run (`stopped: 'budget'`): reading is meant to spend its share.
   */
  read(
    run: { readonly slot?: string | undefined; readonly reason: string } & ReadHooks,
  ): Promise<ReadOutcome>;
  /** What reading would do next (after a push has ended: go on, or wait until a pass is due). */
  nextRead(): ReconcileStep;
  /** Work owed now; failures whose next attempt has come are made pending. */
  due(): StockWorkDue;
  /** Reads the portal's whole stock of a kind (a full export where it was never read). */
  readWholeKind(kind: StockKind): Promise<boolean>;
  /**
   * Products that now exist on the portal: their answered stock is known, and the stock that
   * waited for them is due now (appeared.ts). More than 0: a push is owed.
   */
  productsAppeared(products: readonly AppearedProduct[]): number;
}

export function createStockSync(edges: StockSyncEdges): StockSync {
  const { db, log, clock, signal } = edges;
  const kv = new KeyValueStore(db);
  const paused = () => kv.get('sync.paused') !== undefined;
  const reading = { db, reader: edges.portal.reader, log, clock, signal };

  return {
    async push(reason) {
      if (paused()) {
        log.debug({ event: 'sync.push_paused', reason }, 'push not done: pushes are paused');
        return { calls: 0, sent: 0, updated: 0, failed: 0 };
      }
      const started = clock.now();
      try {
        await establishRemote({
          ...reading,
          writer: edges.portal.writer,
          mayDecide: edges.mayDecideFirstStart,
        });
        const totals = await pushPending({
          db,
          writer: edges.portal.writer,
          log,
          clock,
          retry: edges.retry,
          signal,
          paused,
        });
        if (totals.calls > 0) {
          log.info(
            { event: 'sync.pushed', reason, ...totals, ms: clock.now() - started },
            `push done: ${totals.updated} updated, ${totals.failed} failed in ${totals.calls} calls`,
          );
        }
        kv.set('last.push', { at: clock.now(), outcome: 'ok', ...totals });
        if (totals.calls > 0 || totals.failed > 0) kv.set('last.push_success', clock.now());
        return totals;
      } catch (err) {
        kv.set('last.push', {
          at: clock.now(),
          outcome: 'error',
          error: err instanceof Error ? err.message : String(err),
        });
        throw err;
      }
    },

    async read({ slot, reason, pushDue, onDifferences }) {
      if (slot !== undefined) {
        log.info({ event: 'reconcile.started', reason, slot }, 'full reconciliation started');
        for (const kind of ['factory', 'dc'] as const) startRead(db, kind, clock.now(), 'schedule');
      }
      try {
        const outcome = await readWhileIdle({
          ...reading,
          intervalMs: edges.reconcileMinIntervalMs,
          pushDue,
          onDifferences,
        });
        if (outcome.stopped === 'push') {
          log.debug(
            { event: 'reconcile.yielded', pages: outcome.pages },
            'reading stops for a push; it resumes after it',
          );
        }
        return outcome;
      } catch (err) {
        const action = failurePolicy(err);
        if (action.kind !== 'wait' || action.holds !== 'budget') throw err;
        log.debug(
          { event: 'reconcile.budget_wait', freesAt: new Date(action.until).toISOString() },
          'reading has spent its share of the budget; it goes on when calls free',
        );
        return { pages: 0, stopped: 'budget', until: action.until };
      }
    },

    nextRead: () => nextReconcileStep(db, clock.now(), edges.reconcileMinIntervalMs),

    due() {
      const now = clock.now();
      const failuresDue = new StockFailures(db).markDuePending(now);
      const pending = new PendingStock(db).counts();
      const step = nextReconcileStep(db, now, edges.reconcileMinIntervalMs);
      return { failuresDue, pending, readDue: step.action === 'read' };
    },

    readWholeKind: (kind) => readWholeKind(kind, reading),
    productsAppeared: (products) => productsAppeared(db, products, clock.now()),
  };
}
