import type { JobDeps } from './deps.ts';

/**
 * Re-derives work from state.db — failures whose next attempt is due, pending differences,
 * confirmations due, products to create, a reading pass due — and asks for it; so a Redis that
 * lost every job costs a minute at most. Pushes first: with pending keys, the push's end asks
 * for the reading.
 */
export async function recoverWork(
  deps: Pick<JobDeps, 'stock' | 'shipments' | 'products' | 'nudges'>,
  reason: string,
) {
  const stock = deps.stock.due();
  const pending = stock.pending.factory + stock.pending.dc;
  const confirmationsDue = deps.shipments.confirmationsDue();
  const products = deps.products.due();
  if (pending > 0) await deps.nudges.push(reason);
  if (confirmationsDue) await deps.nudges.confirm(reason);
  if (products.due) await deps.nudges.products(reason);
  if (stock.readDue && pending === 0) await deps.nudges.reconcile(reason);
  return {
    failuresDue: stock.failuresDue,
    pending: stock.pending,
    confirmationsDue,
    productsDue: products.due,
    reading: stock.readDue,
  };
}
