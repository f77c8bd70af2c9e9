import type { Job } from 'bullmq';
import type { JobDeps } from '../deps.ts';
import type { JobPayloads } from '../queues.ts';

/** Polls ready-to-ship orders into the outbox, or sends pending confirmations. */
export function shipmentsProcessor({ shipments }: JobDeps) {
  return (job: Job<JobPayloads['shipments']>) =>
    job.data.task === 'poll' ? shipments.poll() : shipments.confirm();
}
