import type { Job } from 'bullmq';
import { KeyValueStore } from '../../state/kv.ts';
import type { JobDeps } from '../deps.ts';
import type { JobPayloads } from '../queues.ts';

/** Processes one inbox file, then asks for the push or the confirmations it made due. */
export function ingestProcessor(deps: JobDeps) {
  return async (job: Job<JobPayloads['ingest']>) => {
    const result = await deps.ingestFile(job.data.name);
    new KeyValueStore(deps.db).set('last.ingest', {
      at: deps.clock.now(),
      file: job.data.name,
      outcome: result.status,
    });
    if (result.stockChanged) await deps.nudges.push(`file ${job.data.name}`);
    if (result.confirmationsAdded) await deps.nudges.confirm(`file ${job.data.name}`);
    return result;
  };
}
