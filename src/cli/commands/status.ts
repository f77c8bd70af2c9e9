import { readLoginBlock } from '../../api/auth/loginBlock.ts';
import { budgetStatus } from '../../api/budget/store.ts';
import type { Config } from '../../config/index.ts';
import { readHeartbeat } from '../../daemon/heartbeat.ts';
import { redisConnection } from '../../jobs/connection.ts';
import { closeQueues, createQueues, queueDepths } from '../../jobs/queues.ts';
import { AuthStore } from '../../state/authStore.ts';
import { ConfirmationSends } from '../../state/confirmationSends.ts';
import type { StateDb } from '../../state/db.ts';
import { KeyValueStore } from '../../state/kv.ts';
import { PendingStock } from '../../state/pendingStock.ts';
import { ShipmentStore } from '../../state/shipments.ts';
import { StockFailures } from '../../state/stockFailures.ts';
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

/** Everything `status` reports, read from state.db (and Redis for queue depths). */
export async function collectStatus(db: StateDb, config: Config, now = Date.now()) {
  const kv = new KeyValueStore(db);
  const token = new AuthStore(db).readToken();
  const dayStart = new Date(now).setUTCHours(0, 0, 0, 0);
  const pending = new PendingStock(db);
  return {
    daemon: readHeartbeat(db) ?? null,
    queues: await readQueueDepths(config),
    pendingDifferences: { ...pending.counts(), oldestSince: pending.oldestSince() },
    failures: {
      stock: new StockFailures(db).count(),
      confirmations: new ConfirmationSends(db).counts(dayStart),
    },
    budget: budgetStatus(db, config, now),
    token: token ? { ageMs: now - token.obtainedAt, obtainedAt: token.obtainedAt } : null,
    loginBlock: readLoginBlock(db) ?? null,
    shipments: new ShipmentStore(db).counts(),
    last: {
      ingest: kv.get('last.ingest') ?? null,
      push: kv.get('last.push') ?? null,
      reconcile: kv.get('reconcile.last') ?? null,
      poll: kv.get('shipments.last_poll') ?? null,
    },
  };
}

async function readQueueDepths(config: Config) {
  const connection = redisConnection(config.redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  connection.on('error', () => {});
  try {
    await connection.connect();
    const queues = createQueues(connection, config.queuePrefix);
    try {
      return await queueDepths(queues);
    } finally {
      await closeQueues(queues);
    }
  } catch (err) {
    return { error: `redis unreachable: ${(err as Error).message}` };
  } finally {
    connection.disconnect();
  }
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
      const s = await collectStatus(db, config, now);
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
