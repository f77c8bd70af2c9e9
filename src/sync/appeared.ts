import type { AppearedProduct } from '../domain/catalogue.ts';
import type { StateDb } from '../state/db.ts';
import { type RemoteRow, RemoteStock } from '../state/stock/remoteStock.ts';
import { StockFailures } from '../state/stock/stockFailures.ts';

/**
 * Products that now exist on the portal (the products flow created them, or found them): the
 * stock the portal answered they hold is known remote stock, keys whose offered quantity differs
 * are pending, and the failures that waited for them ("Product not found") are due now, not at
 * their back-off time — or over, where the portal now holds what is offered. Returns how many
 * keys owe a push (the caller asks for one).
 */
export function productsAppeared(
  db: StateDb,
  products: readonly AppearedProduct[],
  now: number,
): number {
  const remote = new RemoteStock(db);
  const failures = new StockFailures(db);
  let owed = 0;
  for (const p of products) {
    const rows: RemoteRow[] = [];
    if (p.stock !== undefined) {
      const platformSku = p.platformSku;
      if (p.stock.factory !== null) {
        rows.push({ kind: 'factory', dc: '', sku: p.sku, quantity: p.stock.factory, platformSku });
      }
      for (const d of p.stock.dcs) {
        rows.push({ kind: 'dc', dc: d.dc, sku: p.sku, quantity: d.quantity, platformSku });
      }
    }
    owed += remote.storeRead(rows, now).differences;
    owed += failures.productAppeared(p.sku, now);
  }
  return owed;
}
