import type { OfferSummary } from '../../domain/stockRules.ts';
import type { ApplyResult } from '../../state/stock/desiredStock.ts';

/** What an apply did, as a file's report says it (`stock`; the merge's last transaction sets it). */
export interface StockSummary {
  readonly keys: number;
  readonly differingFromPortal: number;
  readonly newlyPending: number;
  readonly failuresReplaced: number;
  /** Rows not applied because a newer file (by modification time) or snapshot set the key. */
  readonly supersededByNewerFile: number;
  /** The ERP's and the offered quantities under the stock rules (STOCK_RULES_FILE). */
  readonly offers?: OfferSummary;
}

/** The `stock` part of a report. */
export function stockSummary(t: ApplyResult): StockSummary {
  return {
    keys: t.rows,
    differingFromPortal: t.differing,
    newlyPending: t.newlyPending,
    failuresReplaced: t.failuresCleared,
    supersededByNewerFile: t.superseded,
    offers: t.offers,
  };
}
