import type { JobDeps } from '../deps.ts';
import type { QueueName } from '../queues.ts';
import type { Processors } from '../workers.ts';
import { ingestProcessor } from './ingestJob.ts';
import { maintenanceProcessor } from './maintenanceJob.ts';
import { productsProcessor } from './productsJob.ts';
import { afterPush, pushProcessor } from './pushJob.ts';
import { reconcileProcessor } from './reconcileJob.ts';
import { shipmentsProcessor } from './shipmentsJob.ts';

export function processors(deps: JobDeps): Processors {
  return {
    shipments: shipmentsProcessor(deps),
    ingest: ingestProcessor(deps),
    push: pushProcessor(deps),
    products: productsProcessor(deps),
    reconcile: reconcileProcessor(deps),
    maintenance: maintenanceProcessor(deps),
  };
}

/** What follows a queue's job once it has ended (see startWorkers' `afterJob`). */
export function afterJobs(deps: JobDeps): Partial<Record<QueueName, () => Promise<unknown>>> {
  return { push: afterPush(deps) };
}
