import type { Clock } from '../domain/clock.ts';
import type { StockKind } from '../domain/stock.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { kvKey, type ReconcileRead } from '../state/kvKeys.ts';
import { RemoteStock } from '../state/remoteStock.ts';
import type { StockReader } from './ports.ts';

export interface ReconcileDeps {
  readonly db: StateDb;
  readonly reader: StockReader;
  readonly log: Logger;
  readonly clock: Clock;
  readonly signal?: AbortSignal;
  /** Milliseconds between `reconcile.progress` lines. */
  readonly progressEveryMs?: number;
}

export interface KindSummary {
  readonly kind: StockKind;
  readonly rowsRead: number;
  readonly differences: number;
  readonly unknownToPortal: number;
  readonly resumed: boolean;
  /** False when stopped (shutdown) before the last page. */
  readonly complete: boolean;
}

/**
 * Reads the portal's whole stock of a kind into the known remote state, page by page, touching
 * every key where the portal differs from what the ERP asked for. Resumes an interrupted read.
 */
export async function reconcileKind(kind: StockKind, deps: ReconcileDeps): Promise<KindSummary> {
  const kv = new KeyValueStore(deps.db);
  const remote = new RemoteStock(deps.db);
  const saved = kv.get(kvKey.reconcileRead(kind));
  const state: ReconcileRead = saved ?? {
    startedAt: deps.clock.now(),
    cursor: null,
    pages: 0,
    rowsRead: 0,
    differences: 0,
  };
  const every = deps.progressEveryMs ?? 5000;
  let lastProgress = deps.clock.now();
  if (saved) {
    deps.log.info(
      { event: 'reconcile.resumed', kind, pages: saved.pages, rowsRead: saved.rowsRead },
      `resuming the ${kind} stock read`,
    );
  } else {
    kv.set(kvKey.reconcileRead(kind), state);
  }

  let complete = false;
  try {
    for await (const page of deps.reader.pages(kind, state.cursor, deps.signal)) {
      const now = deps.clock.now();
      deps.db.transaction(() => {
        state.differences += remote.storeRead(page.rows, now);
        state.rowsRead += page.rows.length;
        state.pages++;
        state.cursor = page.nextCursor;
        kv.set(kvKey.reconcileRead(kind), state, now);
      })();
      if (now - lastProgress >= every) {
        lastProgress = now;
        deps.log.info(
          {
            event: 'reconcile.progress',
            kind,
            pages: state.pages,
            rowsRead: state.rowsRead,
            differences: state.differences,
          },
          `read ${state.rowsRead} ${kind} stock rows so far`,
        );
      }
      if (page.nextCursor === null) {
        complete = true;
        break;
      }
      if (deps.signal?.aborted) break;
    }
  } catch (err) {
    // Stopped mid-call (shutdown): what was read is kept; the next read resumes from the cursor.
    if (!deps.signal?.aborted) throw err;
  }
  if (!complete) {
    return {
      kind,
      rowsRead: state.rowsRead,
      differences: state.differences,
      unknownToPortal: 0,
      resumed: saved !== undefined,
      complete,
    };
  }
  const unknownToPortal = deps.db.transaction(() => {
    remote.forgetUnseen(kind, state.startedAt);
    kv.delete(kvKey.reconcileRead(kind));
    kv.set(kvKey.established(kind), true);
    kv.set(kvKey.readAt(kind), deps.clock.now());
    return remote.unknownToPortal(kind, state.startedAt);
  })();
  return {
    kind,
    rowsRead: state.rowsRead,
    differences: state.differences,
    unknownToPortal,
    resumed: saved !== undefined,
    complete,
  };
}

/** A full reconciliation: factory stock, then DC stock; logs `reconcile.completed`. */
export async function reconcileAll(deps: ReconcileDeps): Promise<KindSummary[]> {
  const started = deps.clock.now();
  const summaries: KindSummary[] = [];
  for (const kind of ['factory', 'dc'] as const) {
    summaries.push(await reconcileKind(kind, deps));
    if (deps.signal?.aborted) break;
  }
  const complete = summaries.length === 2 && summaries.every((s) => s.complete);
  const totals = {
    rowsRead: summaries.reduce((n, s) => n + s.rowsRead, 0),
    differences: summaries.reduce((n, s) => n + s.differences, 0),
    unknownSkus: summaries.reduce((n, s) => n + s.unknownToPortal, 0),
  };
  if (complete) {
    const kv = new KeyValueStore(deps.db);
    kv.set('reconcile.last', { at: deps.clock.now(), ms: deps.clock.now() - started, ...totals });
    deps.log.info(
      {
        event: 'reconcile.completed',
        ...totals,
        byKind: summaries,
        ms: deps.clock.now() - started,
      },
      `reconciliation read ${totals.rowsRead} rows: ${totals.differences} differences, ${totals.unknownSkus} SKUs unknown to the portal`,
    );
  } else {
    deps.log.info(
      { event: 'reconcile.interrupted', ...totals },
      'reconciliation stopped before the end; it resumes next time',
    );
  }
  return summaries;
}
