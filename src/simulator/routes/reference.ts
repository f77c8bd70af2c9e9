/** Reference data: /sites, /distribution-centres, /tax-rates (no pagination). */
import type { RouteDef } from '../context.ts';
import { referenceData } from '../seed.ts';

export const referenceRoutes: RouteDef[] = [
  {
    method: 'GET',
    pattern: '/sites',
    auth: true,
    handler: (_req, _ctx) => ({ status: 200, body: { data: referenceData.sites() } }),
  },
  {
    method: 'GET',
    pattern: '/distribution-centres',
    auth: true,
    handler: (_req, _ctx) => ({ status: 200, body: { data: referenceData.distributionCentres() } }),
  },
  {
    method: 'GET',
    pattern: '/tax-rates',
    auth: true,
    handler: (_req, _ctx) => ({ status: 200, body: { data: referenceData.taxRates() } }),
  },
];
