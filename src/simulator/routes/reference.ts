/** Reference data: /sites, /distribution-centres, /tax-rates (no pagination). */
import type { RouteDef } from '../context.ts';

export const referenceRoutes: RouteDef[] = [
  {
    method: 'GET',
    pattern: '/sites',
    auth: true,
    handler: (_req, ctx) => ({ status: 200, body: { data: ctx.store.sites() } }),
  },
  {
    method: 'GET',
    pattern: '/distribution-centres',
    auth: true,
    handler: (_req, ctx) => ({ status: 200, body: { data: ctx.store.distributionCentres() } }),
  },
  {
    method: 'GET',
    pattern: '/tax-rates',
    auth: true,
    handler: (_req, ctx) => ({ status: 200, body: { data: ctx.store.taxRates() } }),
  },
];
