import type { Job } from 'bullmq';
import { dataPaths } from '../../config/dataPaths.ts';
import { sendConfirmations } from '../../shipments/confirm.ts';
import { pollReadyToShip } from '../../shipments/poll.ts';
import type { JobDeps } from '../deps.ts';
import type { JobPayloads } from '../queues.ts';

/** Polls ready-to-ship orders into the outbox, or sends pending confirmations. */
export function shipmentsProcessor(deps: JobDeps) {
  return async (job: Job<JobPayloads['shipments']>) => {
    if (job.data.task === 'poll') {
      const outcome = await pollReadyToShip({
        ...deps,
        port: deps.shipments,
        outboxDir: dataPaths(deps.config.dataDir).outbox,
        format: deps.config.outboxFormat,
      });
      return { listed: outcome.listed, exported: outcome.exported?.count ?? 0 };
    }
    return sendConfirmations({
      ...deps,
      port: deps.shipments,
      onFilesAnswered: deps.updateConfirmationReports,
    });
  };
}
