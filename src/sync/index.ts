/**
 * The stock sync: desired stock to the portal — pushes of the pending differences in bulk, the
 * first start's choice, reconciliation while the budget is idle. The only door into src/sync/ for
 * the other folders (.dependency-cruiser.cjs): the jobs call the service `createStockSync` builds;
 * `status` and the `api` command read what they show through the exports below.
 */

export { classifyBulkAnswer, MISSING_FROM_ANSWER } from './decide/bulkResult.ts';
export type { PushTotals } from './push.ts';
export { readTotals } from './reconcile.ts';
export {
  createStockSync,
  type ReadHooks,
  type ReadOutcome,
  type StockSync,
  type StockSyncEdges,
  type StockWorkDue,
} from './stockSync.ts';
