import type { Config } from '../../config/index.ts';
import { type Assessment, assess, reasonText } from '../../daemon/assess.ts';
import { readLiveFacts } from '../../daemon/liveFacts.ts';
import { readQueueDepths, readStatus, type Status } from '../../daemon/status.ts';
import { statusView } from '../../daemon/views.ts';
import { bytesText } from '../../domain/diskState.ts';
import { when, whenDone, zoneName } from '../../domain/humanTime.ts';
import { redisConnection } from '../../jobs/connection.ts';
import { closeQueues, createQueues } from '../../jobs/queues.ts';
import { commandConfig, parseCommand, println, printText } from '../args.ts';
import { type Command, ExitCode, nowOf } from '../command.ts';
import { openExistingState } from '../state.ts';

const usage = `Usage: supplier-sync status [--json]

First line: healthy, degraded, or NEEDS A PERSON, and why. Then the daemon's heartbeat, the free
space of its disk (a full one is named, with its path), the pending stock differences
and when they will be on the portal at the budget left, rejected items, shipments awaiting
confirmation, calls used in the last hour, the token, queue depths, the files of the last 24 hours
(a failed one, or one with rejected rows, makes it degraded), and the last ingest, push,
reconciliation and poll, and when each kind of stock was last fully read from the portal
(and what is being read now). Times are local (SYNC_TIMEZONE, named on the last line). Exits 0 whenever state.db can be read,
degraded or not: \`supplier-sync health\` tells health by its exit code.

--json prints the same as one object: health {verdict, reasons}, the figures, and eta {calls,
at}; every time as ISO 8601 (UTC), null for none.

Options:
  --json   machine-readable output
  --help   this text`;

/** The status read, with the queue depths from Redis (a connection of the command's own). */
async function withQueueDepths(config: Config, status: ReturnType<typeof readStatus>) {
  const connection = redisConnection(config, {
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

export const statusCommand: Command = {
  name: 'status',
  usage,
  async run(ctx) {
    const { values, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
    });
    const config = commandConfig(ctx, configFlags);
    const db = openExistingState(config);
    try {
      const now = nowOf(ctx);
      const live = await readLiveFacts(config.dataDir, now);
      const s = await withQueueDepths(config, readStatus(db, config, now, live));
      const health = assess({
        status: s,
        redisError: 'error' in s.queues ? s.queues.error : undefined,
      });
      if (values.json) {
        println(ctx.stdout, JSON.stringify(statusView(s, health), null, 2));
        return ExitCode.ok;
      }
      for (const line of describe(s, health, now, config.timezone)) printText(ctx.stdout, line);
      return ExitCode.ok;
    } finally {
      db.close();
    }
  },
};

type Shown = Awaited<ReturnType<typeof withQueueDepths>>;

/** The status as a person reads it: the verdict first, then a line per area, local times. */
function describe(s: Shown, health: Assessment, now: number, tz: string): string[] {
  const at = (t: number | null | undefined) => when(t, now, tz);
  const done = (t: number | null | undefined) => whenDone(t, now, tz);
  const out: string[] = [];
  out.push(
    health.verdict === 'healthy'
      ? 'supplier-sync: healthy'
      : `supplier-sync: ${health.verdict.toUpperCase()}: ${reasonText(health.reasons[0]!)}`,
  );
  for (const r of health.reasons.slice(1)) out.push(`  also: ${reasonText(r)}`);
  const row = (label: string, text: string) => out.push(`${label.padEnd(15)}${text}`);

  row(
    'daemon',
    s.daemon === null
      ? 'no heartbeat yet'
      : `heartbeat ${done(s.daemon.at)}, running since ${done(s.daemon.startedAt)}`,
  );
  if (s.disk !== null)
    row(
      'disk',
      s.disk.full
        ? `FULL: ${s.disk.path} (${bytesText(s.disk.freeBytes)} free) since ${at(s.disk.since)}`
        : `${bytesText(s.disk.freeBytes)} free at ${s.disk.path}`,
    );
  for (const a of s.unfinishedApplies)
    row(
      'unfinished',
      `apply of ${a.source}${a.heldId === null ? '' : ` (release of held ${a.heldId})`} decided ${at(a.decidedAt)}, ${a.keysMerged} keys merged so far`,
    );
  if (s.paused !== null)
    row('paused', `since ${at(s.paused.since)}${s.paused.reason ? `: ${s.paused.reason}` : ''}`);
  const p = s.pendingDifferences;
  row(
    'pending',
    p.factory + p.dc === 0
      ? 'nothing to push'
      : `${p.factory} factory and ${p.dc} DC differences since ${at(p.oldestSince)}; ` +
          `${s.eta.calls} bulk call(s), done ${s.eta.at === null || s.eta.at <= now ? 'as soon as they are sent' : `by ${at(s.eta.at)}`}`,
  );
  const f = s.failures;
  row(
    'failures',
    `${f.stock.total} stock item(s) rejected (${f.stock.notFound} "Product not found"); ` +
      `confirmations ${f.confirmations.failed} refused, ${f.confirmations.conflicts} in conflict`,
  );
  row(
    'shipments',
    `${s.shipments.open} on the ready-to-ship list, ${s.shipments.awaitingConfirmation} handed to the ERP and awaiting confirmation; ` +
      (s.shipments.overdue === null
        ? ''
        : `${s.shipments.overdue.length} overdue (deadline ${s.shipments.deadline}); `) +
      `confirmations ${f.confirmations.pending} waiting, ${f.confirmations.confirmedToday} confirmed today`,
  );
  const b = s.budget;
  row(
    'budget',
    `${b.usedLastHour} of ${b.limit} calls in the last hour (${Object.entries(s.callsByLane)
      .map(([lane, n]) => `${lane} ${n}`)
      .join(
        ', ',
      )}); left now: shipments ${b.remainingByLane.shipments}, polls ${b.remainingByLane.poll}, stock ${b.remainingByLane.stock}, reconciliation ${b.remainingByLane.reconcile}` +
      (b.freesAt === null ? '' : `; next slot frees ${at(b.freesAt)}`),
  );
  for (const starved of starvedLanes(s)) {
    row(
      'starved',
      `${LANE_WORDS[starved.lane]}: no call before ${at(starved.until)}: ${starved.reason}`,
    );
  }
  row(
    'token',
    (s.token === null ? 'none yet' : `obtained ${at(s.token.obtainedAt)}`) +
      (s.loginBlock === null
        ? ''
        : `; LOGINS STOPPED since ${at(s.loginBlock.at)} (HTTP ${s.loginBlock.status})`) +
      (s.foreignLogins.lastHour === 0
        ? ''
        : `; invalidated by another client's login ${s.foreignLogins.lastHour} time(s) in the last hour, last ${at(s.foreignLogins.lastAt)}`),
  );
  const depths =
    'error' in s.queues
      ? s.queues.error
      : `${Object.entries(s.queues)
          .map(
            ([q, c]) =>
              `${q} ${(c.waiting ?? 0) + (c.prioritized ?? 0)}/${c.active ?? 0}/${c.delayed ?? 0}`,
          )
          .join(', ')} (waiting/active/delayed)`;
  row('queues', depths);
  row(
    'held',
    s.held.files + s.held.snapshots === 0
      ? 'nothing held by the guard rails'
      : `${s.held.files} file(s) and ${s.held.snapshots} snapshot read(s) held since ${at(s.held.oldestAt)}: \`supplier-sync held\``,
  );
  const pr = s.products;
  if (pr.created > 0 || pr.toCreate > 0 || pr.catalogueReadAt !== null)
    row(
      'products',
      `${pr.toCreate > 0 ? `${pr.toCreate} to create, ` : ''}${pr.created} created, ${pr.undecided} under the platform's review, ${pr.declined.count} declined in the last 7 days: \`supplier-sync products\`; ` +
        (pr.catalogueReadAt === null
          ? "the portal's product list never fully read"
          : `the portal's product list fully read ${at(pr.catalogueReadAt)}`),
    );
  const n = s.notifications;
  if (n.queued > 0)
    row(
      'notifications',
      `${n.queued} waiting to be delivered to NOTIFY_WEBHOOK_URL, the oldest since ${at(n.oldestAt)}`,
    );
  const counted = Object.entries(s.files.counts).filter(([, n]) => n > 0);
  row(
    'files 24 h',
    counted.length === 0
      ? 'none handled'
      : `${counted.map(([outcome, n]) => `${n} ${outcome}`).join(', ')}; ${s.files.rowsRejected} row(s) rejected: \`supplier-sync files\``,
  );
  const l = s.last;
  row(
    'last ingest',
    l.ingest ? `${at(l.ingest.at)}: ${l.ingest.file} ${l.ingest.outcome}` : 'never',
  );
  row(
    'last push',
    l.push === null
      ? 'never'
      : l.push.outcome === 'ok'
        ? `${at(l.push.at)}: ${l.push.calls} call(s), ${l.push.updated} updated, ${l.push.failed} rejected`
        : `${at(l.push.at)}: failed: ${l.push.error}`,
  );
  row(
    'last reconcile',
    l.reconcile
      ? `${at(l.reconcile.at)}: ${l.reconcile.rowsRead} rows read, ${l.reconcile.differences} differences`
      : 'never',
  );
  const r = s.reconcile;
  const kindRead = (kind: 'factory' | 'dc', label: string) => {
    const pass = r.lastFullRead[kind];
    const now = r.inProgress[kind];
    const last = pass
      ? `${label} fully read ${at(pass.completedAt)} (${pass.pages} pages, ${pass.drift} drifted)`
      : `${label} never fully read`;
    if (!now) return last;
    const of = now.total === null ? '' : ` of ${now.total}`;
    return `${last}, reading now: ${now.rowsRead}${of} rows (${now.reason})`;
  };
  row(
    'portal read',
    `${kindRead('factory', 'factory')}; ${kindRead('dc', 'DC')}; ` +
      (r.minIntervalMs > 0
        ? `re-read while the budget is idle, each kind at most every ${r.minIntervalMs >= 60_000 ? `${Math.round(r.minIntervalMs / 60_000)} min` : `${Math.round(r.minIntervalMs / 1000)} s`}`
        : 'idle re-reading off (RECONCILE_CRON only)') +
      `; ${r.driftedKeys.factory + r.driftedKeys.dc} drifted keys pushed back in all`,
  );
  row(
    'last poll',
    l.poll ? `${done(l.poll.at)}: ${l.poll.count} ready to ship, ${l.poll.new} new` : 'never',
  );
  row('times', zoneName(tz, now));
  return out;
}

const LANE_WORDS: Record<string, string> = {
  shipments: 'shipment confirmations',
  poll: 'shipment polls',
  operator: 'operator calls',
  stock: 'stock pushes',
  reconcile: 'reconciliation reads',
};

/**
 * The lanes worth a line when the budget holds them: stock pushes while differences wait, and
 * shipment calls (reading spends its whole share by design; the operator's lane is the stock's).
 */
function starvedLanes(s: Status) {
  const pending = s.pendingDifferences.factory + s.pendingDifferences.dc;
  return s.budget.starved.filter(
    (l) => l.lane === 'shipments' || l.lane === 'poll' || (l.lane === 'stock' && pending > 0),
  );
}
