import { Counter, Gauge, type Registry } from 'prom-client';
import type { ProductsStatus } from './status.ts';

const P = 'supplier_sync_';

/**
 * The new products' figures (docs/products.md), set from the status read with the other metrics:
 * the products the daemon created, those still to create, the platform's review of them, and the
 * last complete read of the portal's catalogue.
 */
export function productMetrics(registry: Registry): (s: ProductsStatus, now: number) => void {
  const gauge = (name: string, help: string) =>
    new Gauge({ name: P + name, help, registers: [registry] });
  const created = new Counter({
    name: `${P}products_created_total`,
    help: 'Products the daemon created on the portal (POST /products), since state.db was created.',
    registers: [registry],
  });
  const toCreate = gauge(
    'products_to_create',
    'Products that products files asked for and the daemon has still to create (queued, or sent with no answer recorded yet).',
  );
  const underReview = gauge(
    'products_under_review',
    "Products the daemon created that the platform's review has not activated or declined yet.",
  );
  const declined = gauge(
    'products_declined_last_7d',
    "Products the daemon created that the platform's review declined in the last 7 days and that are declined still (product.declined; status is degraded while above 0).",
  );
  const readAge = gauge(
    'catalogue_read_age_seconds',
    "Age of the last complete read of the portal's product list (the catalogue pass); absent when never.",
  );
  const catalogueSize = gauge(
    'catalogue_products',
    "Products the last complete read of the portal's product list found; absent when never read.",
  );
  return (s, now) => {
    created.reset();
    created.inc(s.created);
    toCreate.set(s.toCreate);
    underReview.set(s.undecided);
    declined.set(s.declined.count);
    if (s.catalogueReadAt === null) readAge.remove();
    else readAge.set(Math.max(0, now - s.catalogueReadAt) / 1000);
    if (s.catalogueProducts === null) catalogueSize.remove();
    else catalogueSize.set(s.catalogueProducts);
  };
}
