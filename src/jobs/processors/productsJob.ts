import type { Job } from 'bullmq';
import type { JobDeps } from '../deps.ts';
import { type JobPayloads, pushDue } from '../queues.ts';

/**
 * A run of product creations (a few seconds at most); then a push for the stock that waited for
 * the products now on the portal, and another run while requests are due. With none due, the
 * follow-up: the platform's review looked at when due, the catalogue pass read page by page
 * (stopping for a push, and for creations, which ask for another run), and a wake-up set for
 * when the review is next due.
 */
export function productsProcessor({ products, nudges, queues }: JobDeps) {
  return async (job: Job<JobPayloads['products']>) => {
    const outcome = await products.createDue(job.data.reason);
    if (outcome.owed > 0) await nudges.push('products created');
    if (outcome.more) {
      await nudges.products('more to create');
      return outcome;
    }
    const followed = await products.follow({
      pushDue: () => pushDue(queues),
      pushOwed: () => nudges.push('products appeared'),
    });
    if (followed.stopped === 'creations' || followed.stopped === 'slice') {
      await nudges.products(followed.stopped === 'slice' ? 'more to read' : 'more to create');
    }
    // After a push (or a spent budget) the periodic recovery sets the follow-up going again.
    if (followed.stopped === 'idle' && followed.wakeInMs !== null) {
      await nudges.productsIn(followed.wakeInMs, 'follow-up due');
    }
    return { ...outcome, followed };
  };
}
