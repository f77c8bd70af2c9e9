import type { StockKind } from '../domain/stock.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { kvKey } from '../state/kvKeys.ts';
import { countDesired } from '../state/stock/desiredStock.ts';
import { RemoteStock } from '../state/stock/remoteStock.ts';
import { READ_PAGE_SIZE } from './decide/firstStart.ts';
import {
  type KindReading,
  planReconcile,
  type ReconcilePlanInput,
  type ReconcileStep,
} from './decide/reconcilePlan.ts';
import { newSession, type ReconcileDeps, readNextPage, readTotals } from './reconcile.ts';

export interface IdleReadDeps extends ReconcileDeps {
  /** RECONCILE_MIN_INTERVAL_MS. */
  readonly intervalMs: number;
  /**
   * True while a push runs or waits to run: reading stops between two pages and leaves the
   * budget to it (asked before every page).
   */
  readonly pushDue: () => Promise<boolean>;
  /** A pass ended with keys that differ (now pending): ask for a push. */
  readonly onDifferences: (kind: StockKind, differences: number) => Promise<void>;
}

export interface IdleReadOutcome {
  /** Pages read by this run. */
  readonly pages: number;
  /** Why it stopped: a push is due, nothing is due until `until`, or shutdown. */
  readonly stopped: 'push' | 'wait' | 'aborted';
  /** When a pass is next due (with `wait`); null when none is until asked. */
  readonly until: number | null;
}

/**
 * A kind's reading as the plan sees it. A first start that pushed every row counts as a full
 * read begun when it was decided: the portal's answers to that push are what it holds.
 */
function reading(db: StateDb, kind: StockKind): KindReading {
  const kv = new KeyValueStore(db);
  const read = kv.get(kvKey.reconcileRead(kind));
  const passAt = kv.get(kvKey.reconcilePass(kind))?.startedAt ?? null;
  const pushedAt = kv.get(kvKey.pushedWhole(kind)) ?? null;
  return {
    established: kv.get(kvKey.established(kind)) === true,
    inProgress: read ? { startedAt: read.startedAt } : null,
    lastStartedAt:
      passAt === null || pushedAt === null ? (passAt ?? pushedAt) : Math.max(passAt, pushedAt),
  };
}

/** The plan's view of state.db now (reads only). */
export function reconcilePlanInput(
  db: StateDb,
  now: number,
  intervalMs: number,
): ReconcilePlanInput {
  const kv = new KeyValueStore(db);
  const factoryRead = kv.get(kvKey.reconcileRead('factory'));
  const factoryPass = kv.get(kvKey.reconcilePass('factory'));
  const atStart = factoryRead
    ? factoryRead.otherPagesAtStart
    : factoryPass
      ? factoryPass.otherPagesAtStart
      : undefined;
  const dcPages = readTotals(db).pages.dc;
  const lastDc = kv.get(kvKey.reconcilePass('dc'));
  const dcRead = kv.get(kvKey.reconcileRead('dc'));
  // Counting rows reads a whole kind: only when no DC pass ended yet and the portal said no total.
  const dcRows = () =>
    dcRead?.total ?? Math.max(new RemoteStock(db).count('dc'), countDesired(db, 'dc'));
  return {
    now,
    intervalMs,
    factory: reading(db, 'factory'),
    dc: reading(db, 'dc'),
    dcPagesSinceFactoryStart: atStart === undefined ? Number.POSITIVE_INFINITY : dcPages - atStart,
    dcPassPages: () => lastDc?.pages ?? Math.max(1, Math.ceil(dcRows() / READ_PAGE_SIZE.dc)),
  };
}

/** What the lane would read next, for `status` and the schedule (reads only). */
export function nextReconcileStep(db: StateDb, now: number, intervalMs: number): ReconcileStep {
  return planReconcile(reconcilePlanInput(db, now, intervalMs));
}

/**
 * The reconciliation lane at work: reads page after page, as planReconcile says, for as long as
 * something is due, no push is due and the budget allows (a spent budget throws, and the job
 * waits for it as every job does). Passes in progress — started by RECONCILE_CRON, a first start
 * or an earlier idle start — go on whatever RECONCILE_MIN_INTERVAL_MS says.
 */
export async function readWhileIdle(deps: IdleReadDeps): Promise<IdleReadOutcome> {
  const session = newSession(deps.clock.now());
  let pages = 0;
  for (;;) {
    if (deps.signal?.aborted) return { pages, stopped: 'aborted', until: null };
    const step = nextReconcileStep(deps.db, deps.clock.now(), deps.intervalMs);
    if (step.action === 'wait') return { pages, stopped: 'wait', until: step.until };
    if (await deps.pushDue()) return { pages, stopped: 'push', until: null };
    let outcome: Awaited<ReturnType<typeof readNextPage>>;
    try {
      outcome = await readNextPage(step.kind, { ...deps, session }, 'idle');
    } catch (err) {
      // Stopped mid-call (shutdown): the pass resumes from its saved cursor next time.
      if (deps.signal?.aborted) return { pages, stopped: 'aborted', until: null };
      throw err;
    }
    pages++;
    if (outcome.pass !== null && outcome.pass.differences > 0) {
      await deps.onDifferences(step.kind, outcome.pass.differences);
    }
  }
}
