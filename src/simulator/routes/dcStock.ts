/** DC stock: GET /distribution-centre-stocks (cursor), POST single and bulk-update. */
import type { ApiContext, ApiRequest, ApiResponse, RouteDef } from '../context.ts';
import { paginate } from '../cursorPages.ts';
import { intQuery } from '../params.ts';
import { bulkItems, refuseInvalidItem, storeRules, updateDcStock } from '../stockUpdates.ts';
import { cursorFrom, pageBody } from './listPage.ts';
import { singleStockBody } from './stockBody.ts';

export const DC_STOCK_PER_PAGE = 100;
export const DC_STOCK_MAX_PER_PAGE = 100;

function list(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const { store } = ctx;
  const perPage = intQuery(req.query, 'per_page', 1, DC_STOCK_MAX_PER_PAGE) ?? DC_STOCK_PER_PAGE;
  const slice = paginate({
    kind: 'distribution-centre-stocks',
    total: store.dcRecordCount,
    perPage,
    cursor: cursorFrom(req, 'distribution-centre-stocks', ctx),
    maxScan: ctx.maxScan,
  });
  return {
    status: 200,
    body: pageBody(req, slice, perPage, (k) => store.dcRecordAt(k), ctx, store.dcRecordCount),
  };
}

function single(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const body = singleStockBody(req.body, ['distribution_centre_code', 'sku']);
  return { status: 200, body: updateDcStock(ctx.store, [body], storeRules(ctx)) };
}

function bulk(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const knobs = ctx.knobs();
  const items = bulkItems(req.body, ctx);
  if (knobs.bulkRejectsInvalidItem) refuseInvalidItem(items, true);
  const result = updateDcStock(ctx.store, items, storeRules(ctx));
  if (!knobs.dcErrorsWithoutCode) return { status: 200, body: result };
  // The documented error entry: sku, platform_sku, stock_quantity, error (no centre's code).
  const errors = result.errors.map(({ distribution_centre_code: _code, ...entry }) => entry);
  return { status: 200, body: { ...result, errors } };
}

export const dcStockRoutes: RouteDef[] = [
  { method: 'GET', pattern: '/distribution-centre-stocks', auth: true, handler: list },
  { method: 'POST', pattern: '/distribution-centre-stocks', auth: true, handler: single },
  { method: 'POST', pattern: '/distribution-centre-stocks/bulk-update', auth: true, handler: bulk },
];
