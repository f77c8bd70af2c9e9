import type { RemotePage, StockReader } from '../api/index.ts';
import type { Clock } from '../domain/clock.ts';
import type { StockKind } from '../domain/stock.ts';
import { failurePolicy } from '../failures/failurePolicy.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import {
  type DriftExample,
  kvKey,
  type ReconcilePass,
  type ReconcileRead,
  type ReconcileTotals,
} from '../state/kvKeys.ts';
import { type DriftedKey, RemoteStock } from '../state/stock/remoteStock.ts';

export interface ReconcileDeps {
  readonly db: StateDb;
  readonly reader: StockReader;
  readonly log: Logger;
  readonly clock: Clock;
  readonly signal?: AbortSignal;
  /** Milliseconds between `reconcile.progress` lines. */
  readonly progressEveryMs?: number;
  /** The read serves a push (a first start): the reader spends the push's share of the budget. */
  readonly forPush?: boolean;
}

export interface KindSummary {
  readonly kind: StockKind;
  readonly rowsRead: number;
  readonly differences: number;
  readonly drift: number;
  readonly unknownToPortal: number;
  readonly resumed: boolean;
  /** False when stopped (shutdown, a push that pre-empts it, a limit) before the last page. */
  readonly complete: boolean;
  /** Pages read of this pass so far (all of it when complete). */
  readonly pages: number;
  /** meta.total of the last page read, when the portal says it. */
  readonly total: number | undefined;
}

/** Drifted keys named in `reconcile.drift`; the count covers all of them. */
const DRIFT_EXAMPLES = 5;

const other = (kind: StockKind): StockKind => (kind === 'factory' ? 'dc' : 'factory');

/**
 * Running totals (pages read, keys found drifted) since state.db was created: a new object each
 * time, which the caller may change and store.
 */
export function readTotals(db: StateDb): ReconcileTotals {
  return (
    new KeyValueStore(db).get('reconcile.totals') ?? {
      pages: { factory: 0, dc: 0 },
      drift: { factory: 0, dc: 0 },
    }
  );
}

/**
 * Starts a pass of a kind unless one is in progress (which then goes on as it is). `reason`
 * names why: `schedule`, `idle`, `first start`. Returns the pass in progress.
 */
export function startRead(
  db: StateDb,
  kind: StockKind,
  now: number,
  reason: string,
): ReconcileRead {
  const kv = new KeyValueStore(db);
  const saved = kv.get(kvKey.reconcileRead(kind));
  if (saved) return saved;
  const state: ReconcileRead = {
    startedAt: now,
    cursor: null,
    pages: 0,
    rowsRead: 0,
    differences: 0,
    reason,
    drift: 0,
    driftExamples: [],
    otherPagesAtStart: readTotals(db).pages[other(kind)],
  };
  kv.set(kvKey.reconcileRead(kind), state, now);
  return state;
}

/** Per job: when progress was last logged, and which kinds' resumption was logged. */
export interface ReadSession {
  lastProgressAt: number;
  readonly resumed: Set<StockKind>;
}

export function newSession(now: number): ReadSession {
  return { lastProgressAt: now, resumed: new Set() };
}

export interface PageOutcome {
  readonly kind: StockKind;
  readonly rows: number;
  readonly differences: number;
  readonly drifted: number;
  /** The pass as it stands after this page (before it was closed, when this was the last). */
  readonly read: ReconcileRead;
  /** Set when this page ended the pass. */
  readonly pass: ReconcilePass | null;
  /** The pass had been started earlier (by another job, or before a restart). */
  readonly resumed: boolean;
}

/**
 * Reads the next page of a kind's pass (starting one when none is in progress), stores it in the
 * known remote state — every key where the portal differs from what the ERP asked for becomes
 * pending — and closes the pass after its last page. A saved page position the portal refuses
 * (a 4xx: an expired or unknown cursor) is discarded and the pass starts again from the first
 * page (`reconcile.cursor_refused`), so one stale cursor never blocks reading, nor a first push.
 */
export async function readNextPage(
  kind: StockKind,
  deps: ReadDepsWithSession,
  reason = 'reconcile',
): Promise<PageOutcome> {
  const kv = new KeyValueStore(deps.db);
  const saved = kv.get(kvKey.reconcileRead(kind));
  const state: ReconcileRead = saved ?? startRead(deps.db, kind, deps.clock.now(), reason);
  const resumed = saved !== undefined && state.pages > 0;
  if (resumed && !deps.session.resumed.has(kind)) {
    deps.log.info(
      { event: 'reconcile.resumed', kind, pages: state.pages, rowsRead: state.rowsRead },
      `resuming the ${kind} stock read`,
    );
  }
  deps.session.resumed.add(kind);

  const askedAt = deps.clock.now();
  const page = await fetchPage(kind, state, deps);
  const now = deps.clock.now();
  const remote = new RemoteStock(deps.db);
  let drifted: readonly DriftedKey[] = [];
  let differences = 0;
  let pass: ReconcilePass | null = null;
  deps.db.transaction(() => {
    const stored = remote.storeRead(page.rows, now, askedAt);
    differences = stored.differences;
    drifted = stored.drifted;
    state.differences += stored.differences;
    state.rowsRead += page.rows.length;
    state.pages++;
    state.cursor = page.nextCursor;
    state.drift = (state.drift ?? 0) + drifted.length;
    const examples = state.driftExamples ?? [];
    for (const d of drifted.slice(0, Math.max(0, DRIFT_EXAMPLES - examples.length))) {
      examples.push(example(d));
    }
    state.driftExamples = examples;
    if (page.total !== undefined) state.total = page.total;
    const totals = readTotals(deps.db);
    totals.pages[kind]++;
    totals.drift[kind] += drifted.length;
    kv.set('reconcile.totals', totals, now);
    if (page.nextCursor === null) pass = closePass(kind, state, deps.db, now);
    else kv.set(kvKey.reconcileRead(kind), state, now);
  })();

  if (pass !== null) logPass(kind, state, pass, deps.log);
  else if (now - deps.session.lastProgressAt >= (deps.progressEveryMs ?? 5000)) {
    deps.session.lastProgressAt = now;
    deps.log.info(
      {
        event: 'reconcile.progress',
        kind,
        pages: state.pages,
        rowsRead: state.rowsRead,
        total: state.total,
        differences: state.differences,
        drift: state.drift,
      },
      `read ${state.rowsRead} ${kind} stock rows so far`,
    );
  }
  return {
    kind,
    rows: page.rows.length,
    differences,
    drifted: drifted.length,
    read: state,
    pass,
    resumed,
  };
}

type ReadDepsWithSession = ReconcileDeps & { readonly session: ReadSession };

/** One page at the pass's cursor; a refused cursor restarts the pass (in `state`) once. */
async function fetchPage(
  kind: StockKind,
  state: ReconcileRead,
  deps: ReadDepsWithSession,
): Promise<RemotePage> {
  const options = { signal: deps.signal, forPush: deps.forPush };
  try {
    return checked(await deps.reader.page(kind, state.cursor, options), state.cursor);
  } catch (err) {
    const action = failurePolicy(err);
    if (state.cursor === null || action.kind !== 'final') throw err;
    deps.log.warn(
      {
        event: 'reconcile.cursor_refused',
        kind,
        status: action.status,
        error: action.message,
        pagesDiscarded: state.pages,
      },
      `the portal refused the saved ${kind} page position (HTTP ${action.status}): the pass starts again from the first page`,
    );
    const now = deps.clock.now();
    Object.assign(state, {
      startedAt: now,
      cursor: null,
      pages: 0,
      rowsRead: 0,
      differences: 0,
      drift: 0,
      driftExamples: [],
      otherPagesAtStart: readTotals(deps.db).pages[other(kind)],
    } satisfies Partial<ReconcileRead>);
    new KeyValueStore(deps.db).set(kvKey.reconcileRead(kind), state, now);
    return checked(await deps.reader.page(kind, null, options), null);
  }
}

/** A next cursor equal to the one just used would read the same page for ever. */
function checked(page: RemotePage, cursor: string | null): RemotePage {
  const next = page.nextCursor === '' ? null : page.nextCursor;
  if (next !== null && next === cursor) {
    throw new Error('the portal answered a page with its own cursor as the next one');
  }
  return next === page.nextCursor ? page : { ...page, nextCursor: next };
}

function example(d: DriftedKey): DriftExample {
  return {
    ...(d.dc ? { dc: d.dc } : {}),
    sku: d.sku,
    was: d.was,
    portal: d.portal,
    desired: d.desired,
  };
}

/** After the last page: forget rows the portal no longer has, record the pass, end the read. */
function closePass(kind: StockKind, state: ReconcileRead, db: StateDb, now: number): ReconcilePass {
  const kv = new KeyValueStore(db);
  const remote = new RemoteStock(db);
  remote.forgetUnseen(kind, state.startedAt);
  const pass: ReconcilePass = {
    startedAt: state.startedAt,
    completedAt: now,
    reason: state.reason ?? 'reconcile',
    pages: state.pages,
    rowsRead: state.rowsRead,
    differences: state.differences,
    drift: state.drift ?? 0,
    unknownSkus: remote.unknownToPortal(kind, state.startedAt),
    otherPagesAtStart: state.otherPagesAtStart ?? 0,
  };
  kv.delete(kvKey.reconcileRead(kind));
  kv.set(kvKey.established(kind), true, now);
  kv.set(kvKey.readAt(kind), now, now);
  kv.set(kvKey.reconcilePass(kind), pass, now);
  kv.set(
    'reconcile.last',
    {
      at: now,
      ms: now - state.startedAt,
      rowsRead: pass.rowsRead,
      differences: pass.differences,
      unknownSkus: pass.unknownSkus,
    },
    now,
  );
  return pass;
}

function logPass(kind: StockKind, state: ReconcileRead, pass: ReconcilePass, log: Logger): void {
  if (pass.drift > 0) {
    log.warn(
      {
        event: 'reconcile.drift',
        kind,
        count: pass.drift,
        examples: state.driftExamples ?? [],
      },
      `the portal changed ${pass.drift} ${kind} stock quantities behind our back; they are pushed back`,
    );
  }
  log.info(
    {
      event: 'reconcile.completed',
      kind,
      reason: pass.reason,
      pages: pass.pages,
      rowsRead: pass.rowsRead,
      differences: pass.differences,
      drift: pass.drift,
      unknownSkus: pass.unknownSkus,
      ms: pass.completedAt - pass.startedAt,
    },
    `read all ${pass.rowsRead} ${kind} stock rows in ${pass.pages} pages: ${pass.differences} differences (${pass.drift} drifted), ${pass.unknownSkus} SKUs unknown to the portal`,
  );
}

export interface ReadLimits {
  /**
   * Asked after every page with the pass as it stands: true stops the read there (it stays in
   * progress, to be resumed).
   */
  readonly stopAfter?: (read: ReconcileRead) => boolean;
  /** Why a pass started here would start (see startRead). */
  readonly reason?: string;
}

/**
 * Reads a kind's stock to the end of its pass (starting one when none is in progress), or until
 * stopped: shutdown, or `limits.stopAfter`. Resumes an interrupted read.
 */
export async function reconcileKind(
  kind: StockKind,
  deps: ReconcileDeps,
  limits: ReadLimits = {},
): Promise<KindSummary> {
  const session = newSession(deps.clock.now());
  let last: PageOutcome | undefined;
  let resumed = false;
  try {
    for (;;) {
      if (deps.signal?.aborted) break;
      last = await readNextPage(kind, { ...deps, session }, limits.reason);
      resumed ||= last.resumed;
      if (last.pass !== null || limits.stopAfter?.(last.read)) break;
    }
  } catch (err) {
    // Stopped mid-call (shutdown): what was read is kept; the next read resumes from the cursor.
    if (!deps.signal?.aborted) throw err;
  }
  const read = last?.read;
  const pass = last?.pass ?? null;
  return {
    kind,
    rowsRead: read?.rowsRead ?? 0,
    differences: read?.differences ?? 0,
    drift: read?.drift ?? 0,
    unknownToPortal: pass?.unknownSkus ?? 0,
    resumed,
    complete: pass !== null,
    pages: read?.pages ?? 0,
    total: read?.total,
  };
}

/**
 * A full reconciliation (RECONCILE_CRON): factory stock, then DC stock, each to the end of a pass
 * (one in progress goes on; else a new one starts).
 */
export async function reconcileAll(deps: ReconcileDeps): Promise<KindSummary[]> {
  const summaries: KindSummary[] = [];
  for (const kind of ['factory', 'dc'] as const) {
    summaries.push(await reconcileKind(kind, deps, { reason: 'schedule' }));
    if (deps.signal?.aborted) break;
  }
  if (!summaries.every((s) => s.complete)) {
    deps.log.info(
      { event: 'reconcile.interrupted', byKind: summaries },
      'reconciliation stopped before the end; it resumes next time',
    );
  }
  return summaries;
}
