import type { JobDeps } from '../deps.ts';
import type { Processors } from '../workers.ts';
import { ingestProcessor } from './ingest.ts';
import { maintenanceProcessor } from './maintenance.ts';
import { pushProcessor } from './push.ts';
import { reconcileProcessor } from './reconcile.ts';
import { shipmentsProcessor } from './shipments.ts';

export function processors(deps: JobDeps): Processors {
  return {
    shipments: shipmentsProcessor(deps),
    ingest: ingestProcessor(deps),
    push: pushProcessor(deps),
    reconcile: reconcileProcessor(deps),
    maintenance: maintenanceProcessor(deps),
  };
}
