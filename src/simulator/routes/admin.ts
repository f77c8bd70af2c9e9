/**
 * The admin surface under /__admin: no auth, no rate limit, no faults, not counted in stats.
 *   GET  /__admin/state[?kind=factory|dc|shipments|products|brands&offset=&limit=]
 *   GET  /__admin/stats          POST /__admin/stats/reset
 *   GET  /__admin/faults         POST /__admin/faults (Partial<FaultSettings>)
 *   POST /__admin/faults/clear   POST /__admin/invalidate-tokens
 *   GET|POST /__admin/products/{sku}/review   GET|POST /__admin/review-policy (adminReview.ts)
 */
import type { ApiResponse } from '../context.ts';
import { type FaultEngine, validateFaults } from '../faults.ts';
import { invalidParameter } from '../httpError.ts';
import { enumQuery, intQuery } from '../params.ts';
import { Router } from '../router.ts';
import { referenceData } from '../seed.ts';
import type { StatsCollector } from '../stats.ts';
import type { SimulatorStore } from '../store.ts';
import { reviewAdminRoutes } from './adminReview.ts';

export const ADMIN_PREFIX = '/__admin';
export const ADMIN_DEFAULT_LIMIT = 1000;
export const ADMIN_MAX_LIMIT = 100_000;

export interface AdminDeps {
  store: SimulatorStore;
  stats: StatsCollector;
  faults: FaultEngine;
  invalidateTokens(): void;
}

interface AdminRequest {
  query: URLSearchParams;
  params: Readonly<Record<string, string>>;
  body: unknown;
}

interface AdminRoute {
  method: string;
  pattern: string;
  handler: (req: AdminRequest, deps: AdminDeps) => ApiResponse;
}

const KINDS = ['factory', 'dc', 'shipments', 'products', 'brands'] as const;

function page<T>(
  total: number,
  offset: number,
  limit: number,
  at: (i: number) => T,
): { total: number; offset: number; limit: number; data: T[] } {
  const data: T[] = [];
  for (let i = offset; i < Math.min(total, offset + limit); i++) data.push(at(i));
  return { total, offset, limit, data };
}

function state(req: AdminRequest, { store }: AdminDeps): ApiResponse {
  const kind = enumQuery(req.query, 'kind', KINDS);
  const offset = intQuery(req.query, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const limit = intQuery(req.query, 'limit', 0, ADMIN_MAX_LIMIT) ?? ADMIN_DEFAULT_LIMIT;
  const factory = () => page(store.productCount, offset, limit, (i) => store.factoryRecordAt(i));
  const dc = () => page(store.dcRecordCount, offset, limit, (i) => store.dcRecordAt(i));
  const products = () => page(store.productCount, offset, limit, (i) => store.listItemAt(i));
  const list = <T>(all: T[]) => page(all.length, offset, limit, (i) => all[i]!);
  switch (kind) {
    case 'factory':
      return { status: 200, body: { kind, ...factory() } };
    case 'dc':
      return { status: 200, body: { kind, ...dc() } };
    case 'products':
      return { status: 200, body: { kind, ...products() } };
    case 'shipments':
      return { status: 200, body: { kind, ...list(store.allShipments()) } };
    case 'brands':
      return { status: 200, body: { kind, ...list(store.brands.list()) } };
    default:
      return {
        status: 200,
        body: {
          products: store.productCount,
          brands: store.brands.list(),
          shipments: store.allShipments(),
          distribution_centres: referenceData.distributionCentres(),
          factory_stock: factory(),
          distribution_centre_stock: dc(),
        },
      };
  }
}

const routes: AdminRoute[] = [
  { method: 'GET', pattern: '/state', handler: state },
  {
    method: 'GET',
    pattern: '/stats',
    handler: (_r, d) => ({ status: 200, body: d.stats.snapshot() }),
  },
  {
    method: 'POST',
    pattern: '/stats/reset',
    handler: (_r, d) => {
      d.stats.reset();
      return { status: 200, body: { ok: true } };
    },
  },
  {
    method: 'GET',
    pattern: '/faults',
    handler: (_r, d) => ({ status: 200, body: d.faults.current() }),
  },
  {
    method: 'POST',
    pattern: '/faults',
    handler: (req, d) => {
      const error = validateFaults(req.body);
      if (error) throw invalidParameter('body', error);
      d.faults.set(req.body as Record<string, never>);
      return { status: 200, body: d.faults.current() };
    },
  },
  {
    method: 'POST',
    pattern: '/faults/clear',
    handler: (_r, d) => {
      d.faults.clear();
      return { status: 200, body: d.faults.current() };
    },
  },
  {
    method: 'POST',
    pattern: '/invalidate-tokens',
    handler: (_r, d) => {
      d.invalidateTokens();
      return { status: 200, body: { ok: true } };
    },
  },
  ...reviewAdminRoutes,
];

export const adminRouter = new Router(routes);
