import { CLOCK_JUMP_MS } from '../../domain/clockWatch.ts';
import type { StockKind } from '../../domain/stock.ts';
import { READ_PAGE_SIZE } from './firstStart.ts';

/**
 * How much more often a factory pass may start than a DC pass when the budget, not the interval,
 * is what limits reading: the square root of how many more rows a factory page holds (2,500
 * against 100: 5). Reading each kind as often as the square root of its per-row cheapness
 * minimises how long a drifted key waits, on average over all keys, for the pass that finds it.
 */
export const CHEAP_KIND_RATIO = Math.sqrt(READ_PAGE_SIZE.factory / READ_PAGE_SIZE.dc);

/** What the plan needs to know of one kind's reading. */
export interface KindReading {
  /** The first start has been decided (read, or pushed whole): only then is there anything to compare. */
  readonly established: boolean;
  /** A pass in progress (started by the schedule, an idle start, or a first start), or null. */
  readonly inProgress: { readonly startedAt: number } | null;
  /** When the last complete pass started; null when never. */
  readonly lastStartedAt: number | null;
}

export interface ReconcilePlanInput {
  readonly now: number;
  /** RECONCILE_MIN_INTERVAL_MS: 0 starts no pass of its own (only RECONCILE_CRON does). */
  readonly intervalMs: number;
  readonly factory: KindReading;
  readonly dc: KindReading;
  /** DC pages read since the current or last factory pass started (Infinity: never started). */
  readonly dcPagesSinceFactoryStart: number;
  /** Pages a full DC pass takes: the last one's, else an estimate (asked only when needed). */
  readonly dcPassPages: () => number;
}

export type ReconcileStep =
  | { readonly action: 'read'; readonly kind: StockKind; readonly start: boolean }
  /** Nothing to read now; `until`: when a pass is next due (null: none is, until asked). */
  | { readonly action: 'wait'; readonly until: number | null };

/**
 * When a new pass of a kind may start on its own; null: never (off, or not established). A last
 * pass dated ahead of the clock (it went back since) counts as long ago: the pass is due.
 */
function dueAt(k: KindReading, intervalMs: number, now: number): number | null {
  if (intervalMs <= 0 || !k.established || k.inProgress !== null) return null;
  const last = k.lastStartedAt;
  return last === null || last - now > CLOCK_JUMP_MS ? Number.NEGATIVE_INFINITY : last + intervalMs;
}

/**
 * What the reconciliation lane reads next, page by page, while pushes and shipments leave it
 * budget: a pass in progress goes on (factory first: its pass is short); a kind starts a new pass
 * once RECONCILE_MIN_INTERVAL_MS has passed since its last one started. Factory pages are cheap
 * (2,500 rows) and DC pages dear (100 rows), so a factory pass may interrupt a DC pass — once
 * the interval has passed and the DC pass has advanced by 1/CHEAP_KIND_RATIO of its pages since
 * the last factory pass started — and the cheap kind is read up to 5 times as often.
 */
export function planReconcile(input: ReconcilePlanInput): ReconcileStep {
  const { now, intervalMs, factory, dc } = input;
  if (factory.inProgress !== null) return { action: 'read', kind: 'factory', start: false };
  const factoryDue = dueAt(factory, intervalMs, now);
  const dcDue = dueAt(dc, intervalMs, now);
  const dcBusy = dc.inProgress !== null || (dcDue !== null && dcDue <= now);
  const dcAdvanced = () => input.dcPagesSinceFactoryStart >= input.dcPassPages() / CHEAP_KIND_RATIO;
  if (factoryDue !== null && factoryDue <= now && (!dcBusy || dcAdvanced())) {
    return { action: 'read', kind: 'factory', start: true };
  }
  if (dc.inProgress !== null) return { action: 'read', kind: 'dc', start: false };
  if (dcDue !== null && dcDue <= now) return { action: 'read', kind: 'dc', start: true };
  const next = [factoryDue, dcDue].filter((t): t is number => t !== null);
  return { action: 'wait', until: next.length === 0 ? null : Math.min(...next) };
}
