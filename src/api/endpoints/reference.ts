import type { Caller } from '../caller.ts';
import { fetchAll } from '../pagination.ts';
import type { CallOptions } from '../request.ts';
import {
  type DistributionCentre,
  distributionCentreSchema,
  type Site,
  siteSchema,
  type TaxRate,
  taxRateSchema,
} from '../schemas.ts';

export interface ReferenceApi {
  /** GET /sites */
  sites(options?: CallOptions): Promise<Site[]>;
  /** GET /distribution-centres */
  distributionCentres(options?: CallOptions): Promise<DistributionCentre[]>;
  /** GET /tax-rates */
  taxRates(options?: CallOptions): Promise<TaxRate[]>;
}

export function referenceApi(caller: Caller): ReferenceApi {
  return {
    sites: (options) => fetchAll(caller, { method: 'GET', path: 'sites' }, siteSchema, options),
    distributionCentres: (options) =>
      fetchAll(
        caller,
        { method: 'GET', path: 'distribution-centres' },
        distributionCentreSchema,
        options,
      ),
    taxRates: (options) =>
      fetchAll(caller, { method: 'GET', path: 'tax-rates' }, taxRateSchema, options),
  };
}
