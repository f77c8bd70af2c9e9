import type { Job } from 'bullmq';
import type { JobDeps } from '../deps.ts';
import type { JobPayloads } from '../queues.ts';

/**
 * A run of product creations (a few seconds at most); then a push for the stock that waited for
 * the products now on the portal, and another run while requests are due.
 */
export function productsProcessor({ products, nudges }: JobDeps) {
  return async (job: Job<JobPayloads['products']>) => {
    const outcome = await products.createDue(job.data.reason);
    if (outcome.owed > 0) await nudges.push('products created');
    if (outcome.more) await nudges.products('more to create');
    return outcome;
  };
}
