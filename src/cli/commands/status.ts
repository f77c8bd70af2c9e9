import type { Config } from '../../config/index.ts';
import { readQueueDepths, readStatus } from '../../daemon/status.ts';
import { redisConnection } from '../../jobs/connection.ts';
import { closeQueues, createQueues } from '../../jobs/queues.ts';
import { commandConfig, parseCommand, println } from '../args.ts';
import { type Command, ExitCode } from '../command.ts';
import { openExistingState } from '../state.ts';

const usage = `Usage: supplier-sync status [--json]

Shows queue depths, pending stock differences, failed items, calls used in the last hour and
when the budget frees up, token age, shipments waiting for confirmation, and the last ingest,
push, reconciliation and poll with their outcomes.

Options:
  --json   machine-readable output
  --help   this text`;

/** The status read, with the queue depths from Redis (a connection of the command's own). */
async function withQueueDepths(config: Config, status: ReturnType<typeof readStatus>) {
  const connection = redisConnection(config.redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  // ioredis rejects connect() with a bare "Connection is closed."; the error event says why
  // (ECONNREFUSED, WRONGPASS …).
  let cause: Error | undefined;
  connection.on('error', (err: Error) => {
    cause ??= err;
  });
  let queues: Awaited<ReturnType<typeof readQueueDepths>>;
  try {
    await connection.connect().catch((err: unknown) => {
      throw cause ?? err;
    });
    // Errors are reported by readQueueDepths; without a listener each would also be dumped.
    const q = createQueues(connection, config.queuePrefix, () => () => {});
    try {
      queues = await readQueueDepths(q, 5000);
    } finally {
      await closeQueues(q);
    }
  } catch (err) {
    queues = { error: `redis unreachable: ${(err as Error).message}` };
  } finally {
    connection.disconnect();
  }
  return { ...status, queues };
}

const ago = (now: number, at: number | undefined | null) =>
  at ? `${new Date(at).toISOString()} (${Math.round((now - at) / 1000)} s ago)` : 'never';

export const statusCommand: Command = {
  name: 'status',
  summary: 'queues, pending differences, failures, calls used, last sync and poll times',
  usage,
  async run(ctx) {
    const { values, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
    });
    const config = commandConfig(ctx, configFlags);
    const db = openExistingState(config);
    try {
      const now = Date.now();
      const s = await withQueueDepths(config, readStatus(db, config, now));
      if (values.json) {
        println(ctx.stdout, JSON.stringify(s, null, 2));
        return ExitCode.ok;
      }
      const out = (t: string) => println(ctx.stdout, t);
      out(`daemon heartbeat: ${ago(now, s.daemon?.at)}`);
      out(
        `queues: ${
          'error' in s.queues
            ? s.queues.error
            : Object.entries(s.queues)
                .map(
                  ([q, c]) =>
                    `${q} ${c.waiting ?? 0} waiting/${c.active ?? 0} active/${c.delayed ?? 0} delayed/${c.failed ?? 0} failed`,
                )
                .join(', ')
        }`,
      );
      out(
        `pending differences: ${s.pendingDifferences.factory} factory, ${s.pendingDifferences.dc} DC (oldest ${ago(now, s.pendingDifferences.oldestSince)})`,
      );
      out(
        `failed stock items: ${s.failures.stock.total} (${s.failures.stock.notFound} "Product not found")`,
      );
      const c = s.failures.confirmations;
      out(
        `confirmations: ${c.pending} waiting, ${c.confirmedToday} confirmed today, ${c.failed} failed, ${c.conflicts} conflicts`,
      );
      out(
        `shipments: ${s.shipments.open} on the ready-to-ship list, ${s.shipments.awaitingConfirmation} handed to the ERP and awaiting confirmation`,
      );
      out(
        `calls in the last hour: ${s.budget.usedLastHour} of ${s.budget.limit}; shipments lane has ${s.budget.remainingByLane.shipments} left; next slot frees ${s.budget.freesAt ? new Date(s.budget.freesAt).toISOString() : 'now'}`,
      );
      out(
        `token: ${s.token ? `obtained ${Math.round(s.token.ageMs / 60000)} min ago` : 'none'}${s.loginBlock ? `; LOGIN BLOCKED: ${JSON.stringify(s.loginBlock)}` : ''}`,
      );
      for (const [name, last] of Object.entries(s.last))
        out(`last ${name}: ${last ? JSON.stringify(last) : 'never'}`);
      return ExitCode.ok;
    } finally {
      db.close();
    }
  },
};
