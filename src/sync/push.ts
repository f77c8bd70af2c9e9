import type { Clock } from '../domain/clock.ts';
import type { RetrySettings } from '../domain/retrySchedule.ts';
import type { StockKind, StockRow } from '../domain/stock.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { PendingStock } from '../state/pendingStock.ts';
import { RemoteStock } from '../state/remoteStock.ts';
import { StockFailures } from '../state/stockFailures.ts';
import { type BulkOutcome, classifyBulkAnswer } from './decide/bulkResult.ts';
import { decidePush } from './decide/pushDecision.ts';
import type { StockWriter } from './ports.ts';

export interface PushDeps {
  readonly db: StateDb;
  readonly writer: StockWriter;
  readonly log: Logger;
  readonly clock: Clock;
  readonly retry: RetrySettings;
  /** Stops between batches (graceful shutdown); what is not sent stays pending. */
  readonly signal?: AbortSignal;
}

export interface PushTotals {
  calls: number;
  sent: number;
  updated: number;
  failed: number;
}

/** Items logged one by one per batch; beyond that a batch logs a summary line only. */
const ITEM_LOG_LIMIT = 20;

/**
 * Sends every pending key whose desired quantity differs from what the portal holds, factory
 * first, then DC, in the largest batches the portal accepts. A key costs a call only when it
 * really differs; a push that finds nothing to do costs none.
 */
export async function pushPending(deps: PushDeps): Promise<PushTotals> {
  const totals: PushTotals = { calls: 0, sent: 0, updated: 0, failed: 0 };
  for (const kind of ['factory', 'dc'] as const) {
    await pushKind(kind, deps, totals);
    if (deps.signal?.aborted) break;
  }
  return totals;
}

async function pushKind(kind: StockKind, deps: PushDeps, totals: PushTotals): Promise<void> {
  const pending = new PendingStock(deps.db);
  let after = { dc: '', sku: '' };
  let batch: StockRow[] = [];
  for (;;) {
    const size = deps.writer.maxBatchSize(kind);
    const keys = pending.next(kind, size, after);
    const last = keys.at(-1);
    if (last) after = { dc: last.dc, sku: last.sku };
    const decision = decidePush(keys, deps.clock.now());
    pending.settle(decision.settle);
    batch.push(...decision.send);
    const exhausted = keys.length < size;
    while (batch.length >= size || (exhausted && batch.length > 0)) {
      if (deps.signal?.aborted) return;
      const rows = batch.slice(0, size);
      batch = batch.slice(size);
      await sendBatch(kind, rows, deps, totals);
    }
    if (exhausted || deps.signal?.aborted) return;
  }
}

async function sendBatch(
  kind: StockKind,
  rows: StockRow[],
  deps: PushDeps,
  totals: PushTotals,
): Promise<void> {
  let outcome: BulkOutcome;
  try {
    const answer = await deps.writer.bulkUpdate(kind, rows, deps.signal);
    outcome = classifyBulkAnswer(kind, rows, answer);
  } catch (err) {
    const rejection = finalRejection(err);
    if (rejection === undefined) throw err; // retryable: the rows stay pending for the next push
    outcome = {
      updated: [],
      failed: rows.map((row) => ({ row, error: rejection, notFound: false })),
    };
  }
  applyOutcome(outcome, deps);
  totals.calls++;
  totals.sent += rows.length;
  totals.updated += outcome.updated.length;
  totals.failed += outcome.failed.length;
  deps.log.info(
    {
      event: 'stock.pushed',
      kind,
      items: rows.length,
      updated: outcome.updated.length,
      failed: outcome.failed.length,
    },
    `pushed ${rows.length} ${kind} stock rows`,
  );
  for (const f of outcome.failed.slice(0, ITEM_LOG_LIMIT)) {
    deps.log.warn(
      {
        event: 'stock.item_failed',
        kind,
        dc: f.row.dc || undefined,
        sku: f.row.sku,
        quantity: f.row.quantity,
        error: f.error,
      },
      `portal rejected ${f.row.sku}: ${f.error}`,
    );
  }
  if (outcome.failed.length > ITEM_LOG_LIMIT) {
    deps.log.warn(
      { event: 'stock.items_failed', kind, failed: outcome.failed.length, logged: ITEM_LOG_LIMIT },
      `${outcome.failed.length - ITEM_LOG_LIMIT} more items rejected in this batch (see 'supplier-sync failures')`,
    );
  }
}

/** Landed rows become known remote; rejected rows become failures; both stop being pending. */
function applyOutcome(outcome: BulkOutcome, deps: PushDeps): void {
  const now = deps.clock.now();
  const pending = new PendingStock(deps.db);
  const remote = new RemoteStock(deps.db);
  const failures = new StockFailures(deps.db);
  deps.db.transaction(() => {
    for (const u of outcome.updated) {
      remote.storePushed(u, u.platformSku, now);
      failures.resolve(u);
      pending.settleSent(u, u.quantity);
    }
    for (const f of outcome.failed) {
      failures.record(f.row, f.error, f.notFound, now, deps.retry);
      pending.settleSent(f.row, f.row.quantity);
    }
  })();
}

/**
 * A whole request the portal refused for good (a 4xx other than auth and rate limits): every item
 * of it is failed with that message, so it backs off on its own instead of blocking the queue.
 */
function finalRejection(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; status?: unknown; retryable?: unknown; message?: unknown };
  if (e.code !== 'E_HTTP' || e.retryable === true || typeof e.status !== 'number') return undefined;
  if (e.status < 400 || e.status >= 500 || [401, 403, 408, 429].includes(e.status))
    return undefined;
  return `request rejected (${e.status}): ${String(e.message ?? '')}`;
}
