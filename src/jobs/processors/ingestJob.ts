import type { Job } from 'bullmq';
import type { JobDeps } from '../deps.ts';
import type { JobPayloads } from '../queues.ts';

/** Reads one inbox file, then asks for the push, the confirmations or the creations it made due. */
export function ingestProcessor({ ingestion, nudges }: JobDeps) {
  return async (job: Job<JobPayloads['ingest']>) => {
    const result = await ingestion.ingestFile(job.data.name);
    if (result.stockChanged) await nudges.push(`file ${job.data.name}`);
    if (result.confirmationsAdded) await nudges.confirm(`file ${job.data.name}`);
    if (result.productsQueued) await nudges.products(`file ${job.data.name}`);
    return result;
  };
}
