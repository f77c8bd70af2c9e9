import {
  BulkIncompleteError,
  type BulkResult,
  reprobeDue,
  type StockWriter,
} from '../api/index.ts';
import type { Clock } from '../domain/clock.ts';
import type { RetrySettings } from '../domain/retrySchedule.ts';
import type { StockKind, StockRow } from '../domain/stock.ts';
import { failurePolicy } from '../failures/failurePolicy.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { kvKey } from '../state/kvKeys.ts';
import { PendingStock } from '../state/stock/pendingStock.ts';
import { RemoteStock } from '../state/stock/remoteStock.ts';
import { StockFailures } from '../state/stock/stockFailures.ts';
import { StockPushes } from '../state/stock/stockPushes.ts';
import { type BulkOutcome, classifyBulkAnswer } from './decide/bulkResult.ts';
import { nextBatchLength } from './decide/pushBatches.ts';
import { decidePush } from './decide/pushDecision.ts';

export interface PushDeps {
  readonly db: StateDb;
  readonly writer: StockWriter;
  readonly log: Logger;
  readonly clock: Clock;
  readonly retry: RetrySettings;
  /** Stops between batches (graceful shutdown); what is not sent stays pending. */
  readonly signal?: AbortSignal;
  /** True once pushes are paused (`pause`): stops between batches too. */
  readonly paused?: () => boolean;
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
 * really differs; a push that finds nothing to do costs none. A kind whose first start is not
 * decided yet (establishRemote) is not pushed: its rows wait for the decision, which may be to
 * read the portal first and push only what differs.
 */
export async function pushPending(deps: PushDeps): Promise<PushTotals> {
  const totals: PushTotals = { calls: 0, sent: 0, updated: 0, failed: 0 };
  const kv = new KeyValueStore(deps.db);
  for (const kind of ['factory', 'dc'] as const) {
    if (kv.get(kvKey.established(kind)) !== true) continue;
    await pushKind(kind, deps, totals);
    if (deps.signal?.aborted || deps.paused?.()) break;
  }
  return totals;
}

async function pushKind(kind: StockKind, deps: PushDeps, totals: PushTotals): Promise<void> {
  reprobeIfDue(kind, deps);
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
    for (;;) {
      // Re-read before every batch: after the portal refused one as too large, what remains of
      // the push is cut at the size learnt then.
      const fit = deps.writer.maxBatchSize(kind);
      const take = nextBatchLength(kind, batch, fit);
      // A batch goes once it cannot grow (full, or the next row would repeat a SKU), or at the end.
      const closed = take === fit || take < batch.length;
      if (take === 0 || !(closed || exhausted)) break;
      if (deps.signal?.aborted || deps.paused?.()) return;
      const rows = batch.slice(0, take);
      batch = batch.slice(take);
      await sendBatch(kind, rows, deps, totals);
    }
    if (exhausted || deps.signal?.aborted) return;
  }
}

/**
 * A batch size learnt from the portal's refusals is forgotten a day after it was learnt, so the
 * configured size is tried again (one refused call if the limit still holds): a portal that
 * raised its limit, or refused once under load, does not keep every push small for good.
 */
function reprobeIfDue(kind: StockKind, deps: PushDeps): void {
  const learntAt = deps.writer.batchSizeLearntAt(kind);
  if (!reprobeDue(learntAt, deps.clock.now())) return;
  const learntSize = deps.writer.maxBatchSize(kind);
  deps.writer.forgetBatchSize(kind);
  deps.log.info(
    {
      event: 'sync.bulk_reprobe',
      kind,
      learntSize,
      learntAt: learntAt ? new Date(learntAt).toISOString() : null,
    },
    `trying the configured ${kind} batch size again (learnt ${learntSize} a day or more ago)`,
  );
}

async function sendBatch(
  kind: StockKind,
  rows: StockRow[],
  deps: PushDeps,
  totals: PushTotals,
): Promise<void> {
  let outcome: BulkOutcome;
  let sent = rows;
  try {
    const answer = await deps.writer.bulkUpdate(kind, rows, deps.signal);
    outcome = classifyBulkAnswer(kind, rows, answer);
  } catch (err) {
    if (err instanceof BulkIncompleteError) {
      // The parts sent before the failure were answered: keep their results; the rows that
      // were not sent stay pending, and the failure is decided as usual (by the job).
      const unsent = new Set(err.unsent.map((item) => itemKey(kind, item as SentItem)));
      sent = rows.filter((row) => !unsent.has(itemKey(kind, rowItem(row))));
      record(kind, sent, classifyBulkAnswer(kind, sent, err.answered as BulkResult), deps, totals);
      throw err;
    }
    const action = failurePolicy(err);
    // retry, wait, fix-config: the rows stay pending; the job decides when to come back.
    if (action.kind !== 'final') throw err;
    // The portal refused the whole request for good: every item of it fails with that message
    // and backs off on its own instead of blocking the queue.
    const error = `request refused (HTTP ${action.status}): ${action.message}`;
    outcome = { updated: [], failed: rows.map((row) => ({ row, error, notFound: false })) };
  }
  record(kind, sent, outcome, deps, totals);
}

/** What the writer's items look like (the API's field names). */
interface SentItem {
  readonly sku: string;
  readonly distribution_centre_code?: string;
}

const rowItem = (row: StockRow): SentItem => ({ sku: row.sku, distribution_centre_code: row.dc });
const itemKey = (kind: StockKind, item: SentItem) =>
  kind === 'factory' ? item.sku : `${item.distribution_centre_code ?? ''}\u0000${item.sku}`;

/** Stores an answered batch and logs it. */
function record(
  kind: StockKind,
  rows: readonly StockRow[],
  outcome: BulkOutcome,
  deps: PushDeps,
  totals: PushTotals,
): void {
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
  const echoed = outcome.updated.filter((u) => u.echoed !== null && u.echoed !== u.quantity);
  if (echoed.length > 0) {
    deps.log.warn(
      {
        event: 'stock.echo_differs',
        kind,
        count: echoed.length,
        examples: echoed
          .slice(0, 5)
          .map((u) => ({ dc: u.dc || undefined, sku: u.sku, sent: u.quantity, held: u.echoed })),
      },
      `the portal holds another quantity than sent for ${echoed.length} ${kind} rows; the held one is recorded`,
    );
  }
}

/** Landed rows become known remote; rejected rows become failures; both stop being pending. */
function applyOutcome(outcome: BulkOutcome, deps: PushDeps): void {
  const now = deps.clock.now();
  const pending = new PendingStock(deps.db);
  const remote = new RemoteStock(deps.db);
  const failures = new StockFailures(deps.db);
  const pushes = new StockPushes(deps.db);
  deps.db.transaction(() => {
    for (const u of outcome.updated) {
      // What the portal says it holds, which may differ from what was sent (a portal that
      // clamps): a difference is found again by the next reconciliation, never hidden.
      remote.storePushed({ ...u, quantity: u.echoed ?? u.quantity }, u.platformSku, now);
      pushes.updated(u, u.echoed ?? u.quantity, now);
      failures.resolve(u);
      pending.settleSent(u, u.quantity);
    }
    for (const f of outcome.failed) {
      failures.record(f.row, f.error, f.notFound, now, deps.retry);
      pushes.rejected(f.row, f.error, now);
      pending.settleSent(f.row, f.row.quantity);
    }
  })();
}
