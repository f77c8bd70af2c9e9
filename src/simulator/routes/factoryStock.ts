/** Factory stock: GET /factory-stocks (range filters, cursor), POST single and bulk-update. */
import type { ApiContext, ApiRequest, ApiResponse, RouteDef } from '../context.ts';
import { paginate } from '../cursorPages.ts';
import { intQuery } from '../params.ts';
import { MAX_QUANTITY } from '../stockArrays.ts';
import { bulkItems, refuseInvalidItem, storeRules, updateFactoryStock } from '../stockUpdates.ts';
import { cursorFrom, pageBody } from './listPage.ts';
import { singleStockBody } from './stockBody.ts';

export const FACTORY_PER_PAGE = 2500;
export const FACTORY_MAX_PER_PAGE = 5000;

function list(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const { store } = ctx;
  const q = req.query;
  const qtyGte = intQuery(q, 'stock_quantity_gte', 0, MAX_QUANTITY);
  const qtyLte = intQuery(q, 'stock_quantity_lte', 0, MAX_QUANTITY);
  const allocGte = intQuery(q, 'stock_quantity_allocated_gte', 0, MAX_QUANTITY);
  const allocLte = intQuery(q, 'stock_quantity_allocated_lte', 0, MAX_QUANTITY);
  const perPage = intQuery(q, 'per_page', 1, FACTORY_MAX_PER_PAGE) ?? FACTORY_PER_PAGE;
  const lo = qtyGte ?? 0;
  const hi = qtyLte ?? MAX_QUANTITY;
  const aLo = allocGte ?? 0;
  const aHi = allocLte ?? MAX_QUANTITY;
  const filtered = [qtyGte, qtyLte, allocGte, allocLte].some((v) => v !== undefined);
  const matches = filtered
    ? (p: number) => {
        const qty = store.factoryQuantityAt(p);
        const alloc = store.factoryAllocatedAt(p);
        return qty >= lo && qty <= hi && alloc >= aLo && alloc <= aHi;
      }
    : undefined;
  const slice = paginate({
    kind: 'factory-stocks',
    total: store.productCount,
    perPage,
    cursor: cursorFrom(req, 'factory-stocks', ctx),
    matches,
    maxScan: ctx.maxScan,
  });
  return {
    status: 200,
    body: pageBody(
      req,
      slice,
      perPage,
      (p) => store.factoryRecordAt(p),
      ctx,
      filtered ? undefined : store.productCount,
    ),
  };
}

function single(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const body = singleStockBody(req.body, ['sku']);
  return { status: 200, body: updateFactoryStock(ctx.store, [body], storeRules(ctx)) };
}

function bulk(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const items = bulkItems(req.body, ctx);
  if (ctx.knobs().bulkRejectsInvalidItem) refuseInvalidItem(items, false);
  return { status: 200, body: updateFactoryStock(ctx.store, items, storeRules(ctx)) };
}

export const factoryStockRoutes: RouteDef[] = [
  { method: 'GET', pattern: '/factory-stocks', auth: true, handler: list },
  { method: 'POST', pattern: '/factory-stocks', auth: true, handler: single },
  { method: 'POST', pattern: '/factory-stocks/bulk-update', auth: true, handler: bulk },
];
