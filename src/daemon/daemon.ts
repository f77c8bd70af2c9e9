import { serveRequests } from '../actions/requests.ts';
import { createPortalClient, portalClientOptions } from '../api/index.ts';
import {
  type Config,
  configSecrets,
  describeConfig,
  ensureDataDirs,
  inboxFilePath,
} from '../config/index.ts';
import { watchProfilesFile } from '../config/profiles.ts';
import { type Clock, systemClock } from '../domain/clock.ts';
import {
  createDcDirectory,
  guardThresholds,
  ingestInboxFile,
  resumeStagedApplies,
} from '../inventory/index.ts';
import { laneConnectionName, redisConnection } from '../jobs/connection.ts';
import type { IngestResult, JobDeps } from '../jobs/deps.ts';
import { Nudges } from '../jobs/nudges.ts';
import { afterJobs, processors } from '../jobs/processors/index.ts';
import { recoverWork } from '../jobs/processors/maintenanceJob.ts';
import { closeQueues, createQueues, liftPauses, pushDue } from '../jobs/queues.ts';
import { watchRedis } from '../jobs/redisWatch.ts';
import { startSchedules } from '../jobs/schedules.ts';
import { startWorkers } from '../jobs/workers.ts';
import type { Logger } from '../log/logger.ts';
import { registerSecret } from '../log/redact.ts';
import { recoverOutbox } from '../shipments/outbox.ts';
import { openStateDb } from '../state/db.ts';
import { readWholeKind } from '../sync/readKind.ts';
import { startIdleCompaction } from './compaction.ts';
import { startHeartbeat } from './heartbeat.ts';
import { loadStockRules } from './liveStockRules.ts';
import { daemonNotifications } from './notifyWiring.ts';
import { shipmentsPort, stockReader, stockWriter } from './portAdapters.ts';
import { updateConfirmationReports } from './reports.ts';
import { daemonSchedules, type ScheduledTask } from './schedulePlan.ts';
import { readSnapshotSource, startSources } from './sources.ts';
import { startStaleWatch } from './staleWatch.ts';
import { startFilesApplied } from './startFiles.ts';
import { daemonActions, type HeldLock, lockDataDir, releasingOnFailure } from './writerStart.ts';

export interface DaemonOptions {
  readonly config: Config;
  readonly log: Logger;
  readonly clock?: Clock;
}

/**
 * Work the daemon does on its own at a schedule's tick, the inbox's periodic scan ('inbox-scan')
 * or the look at its watched settings files every 2 s ('settings-files': INBOX_PROFILES_FILE and
 * STOCK_RULES_FILE), by name.
 */
export type DaemonTask = ScheduledTask | 'inbox-scan' | 'settings-files' | 'notifications';

export interface Daemon {
  /**
   * Does now, out of turn, what a schedule's next tick, the next inbox scan or the next look at
   * the settings files would do (a tick only asks for work, deduplicated like any nudge);
   * resolves once it is asked for (the scan and the settings files: once they have been read).
   * The optional schedules (deadline, retention, snapshot) only when configured. For tools and
   * tests that must not wait for a tick.
   */
  runNow(task: DaemonTask): Promise<void>;
  /** Graceful stop: no new work, the call in flight finishes, everything closes. */
  stop(reason: string): Promise<void>;
}

/** How often a stale sync is looked for; also the gap between two `sync.stale` warnings. */
const STALE_CHECK_MS = 15 * 60_000;
/** The longest the start waits to lift the queues' pauses (Redis may be down). */
const LIFT_PAUSES_WAIT_MS = 2000;
/** The longest a graceful stop waits for jobs in flight before it closes anyway. */
const STOP_GRACE_MS = 8000;

/**
 * The daemon: state.db, the portal client, queues and workers, the inbox and snapshot sources,
 * the schedules and the heartbeat — started in that order, stopped in reverse.
 */
export function startDaemon(options: DaemonOptions): Promise<Daemon> {
  return releasingOnFailure((held) => startLocked(options, held));
}

async function startLocked(options: DaemonOptions, held: HeldLock): Promise<Daemon> {
  const { config, log } = options;
  const clock = options.clock ?? systemClock;
  for (const secret of configSecrets(config)) registerSecret(secret);
  // NOTIFY_WEBHOOK_SECRET_FILE read first too; the invalid settings files below also notify.
  const notifications = daemonNotifications(config, log);
  // First, so that a broken profiles file stops the start (exit 78) before anything is opened.
  // Watched from here on; each inbox file is read with the profiles in force when it is taken.
  const profiles = config.inboxProfilesFile
    ? watchProfilesFile(config.inboxProfilesFile, notifications.watchLog)
    : undefined;
  if (profiles && config.inboxProfilesFile) {
    log.info(
      {
        event: 'profiles.loaded',
        file: config.inboxProfilesFile,
        profiles: profiles.current().profiles.length,
      },
      `inbox profiles read from ${config.inboxProfilesFile}`,
    );
  }
  // The console password too (CONSOLE_PASSWORD_FILE): unreadable or too short stops the start.
  const consolePassword = config.consolePasswordFile
    ? (await import('./console/consoleAuth.ts')).readConsolePassword(config.consolePasswordFile)
    : undefined;
  if (consolePassword !== undefined) registerSecret(consolePassword);
  // Likewise for the stock rules (#17); taken by the apply once state.db is open.
  const stockRules = loadStockRules(config, log, notifications.watchLog);
  const paths = await ensureDataDirs(config.dataDir);
  const db = openStateDb(paths.stateDb);
  // One writer per data dir, before anything is written: a second daemon exits 78 here.
  held.lock = await lockDataDir(config.dataDir, db, log);
  notifications.start(db, clock); // before any work that may notify
  const client = createPortalClient(
    portalClientOptions(config, { db, log, clock, lane: 'operator' }),
  );
  const stopping = new AbortController();

  const connection = redisConnection(config, {
    connectionName: laneConnectionName(config.queuePrefix, 'daemon'),
  });
  // One line when Redis goes away and one when it is back, however many parts report it.
  const redis = watchRedis({ log, now: clock.now });
  redis.connection(connection, 'daemon');
  const queues = createQueues(connection, config.queuePrefix, redis.onError);
  const nudges = new Nudges(queues);
  // Stored keys worked out again if the rules differ from the last run's; at every change too.
  stockRules.attach(db, clock, (keys) => {
    nudges
      .push(`stock rules changed (${keys} keys)`)
      .catch((err) => log.warn({ event: 'queue.error', err }, 'could not enqueue a push'));
  });

  const dcDirectory = createDcDirectory({
    db,
    log,
    clock,
    fetchDistributionCentres: () =>
      client.reference.distributionCentres({ lane: 'stock', signal: stopping.signal }),
  });
  const retry = {
    baseMs: config.failureBackoffBaseMs,
    maxMs: config.failureBackoffMaxMs,
    notFoundMs: config.notFoundRetryMs,
  };
  const outbox = { db, outboxDir: paths.outbox, format: config.outboxFormat, clock, log };
  // A full export (absent: "zero", SNAPSHOT_ABSENT=zero) of a kind the portal was never read of.
  const readPortalStock = (kind: 'factory' | 'dc') =>
    readWholeKind(kind, { db, reader: stockReader(client), log, clock, signal: stopping.signal });

  const deps: JobDeps = {
    config,
    db,
    log,
    clock,
    signal: stopping.signal,
    nudges,
    pushDue: () => pushDue(queues),
    startFilesApplied: startFilesApplied(paths.inbox, clock.now),
    writer: stockWriter(client),
    reader: stockReader(client),
    shipments: shipmentsPort(client),
    retry,
    ingestFile: async (name): Promise<IngestResult> => {
      const outcome = await ingestInboxFile(inboxFilePath(paths, name), {
        db,
        log,
        dataDir: config.dataDir,
        dcDirectory,
        clock,
        maxSkuLength: config.maxSkuLength,
        maxRecordBytes: config.inboxMaxRecordBytes,
        locations: () => stockRules.current().locations,
        guard: guardThresholds(config),
        ...(profiles ? { profiles: () => profiles.current().profiles } : {}),
        timeZone: config.timezone,
        readPortalStock,
      });
      return {
        status: outcome.status,
        stockChanged: (outcome.pendingKeys ?? 0) > 0,
        confirmationsAdded: (outcome.confirmations?.new ?? 0) > 0,
      };
    },
    readSnapshot: () =>
      readSnapshotSource({
        config,
        db,
        log,
        clock,
        dcDirectory,
        readPortalStock,
        locations: () => stockRules.current().locations,
      }),
    refreshDistributionCentres: () => dcDirectory.refresh(),
    updateConfirmationReports: (fileIds) =>
      updateConfirmationReports(db, config.dataDir, fileIds, log),
  };

  await recoverOutbox(outbox);
  // Before the workers look at their queues (a worker that met a pause sleeps it out): a
  // restart after a configuration fix works at once. Bounded, so a Redis that is down does not
  // hold the start.
  await Promise.race([
    liftPauses(queues).catch((err) =>
      log.warn({ event: 'queue.error', err }, 'could not lift the queues’ pauses'),
    ),
    new Promise((r) => setTimeout(r, LIFT_PAUSES_WAIT_MS).unref()),
  ]);
  const workers = startWorkers({
    redis: config,
    connection,
    prefix: config.queuePrefix,
    queues,
    processors: processors(deps),
    afterJob: afterJobs(deps),
    lockMs: config.jobLockMs,
    onError: redis.onError,
    log,
    now: clock.now,
  });
  const sources = await startSources({ config, db, log, clock, nudges, dcDirectory });

  const schedules = daemonSchedules(config, nudges, async () => {
    // An apply left half merged is finished (no Redis needed). While Redis is down its nudges
    // would only wait in the connection's queue; the 'ready' below re-derives the work.
    await resumeStagedApplies({ db, log, dataDir: config.dataDir });
    if (redis.state().up) await recoverWork(deps, 'periodic recovery');
  });
  const cron = startSchedules(schedules, config.timezone, log);
  const heartbeat = startHeartbeat(db, clock.now, (err) =>
    log.warn({ event: 'heartbeat.failed', err }, 'could not write the heartbeat'),
  );
  // Memory given back once idle (needs --expose-gc, src/cli/nodeFlags.ts; a no-op without it).
  const compaction = startIdleCompaction({ log, now: clock.now });
  const staleWatch = startStaleWatch({
    db,
    log,
    staleAfterMs: config.staleAfterMs,
    everyMs: STALE_CHECK_MS,
    now: clock.now,
  });
  const actions = daemonActions({ db, config, now: clock.now, log }, nudges);
  // The HTTP server, console and metrics are loaded only with HTTP_PORT (density: idle daemons skip them).
  const http =
    config.httpPort > 0
      ? await (await import('./httpServer.ts')).startHttpServer({
          port: config.httpPort,
          host: config.httpHost,
          db,
          config,
          queues,
          redis,
          log,
          now: clock.now,
          consolePassword,
          nudge: actions.nudge,
        })
      : undefined;

  // Work that was pending when the daemon last stopped (or that Redis lost) is asked for again.
  const recoverOnReady = () => {
    recoverWork(deps, 'redis ready').catch((err) =>
      log.warn({ event: 'recover.failed', err }, 'could not re-enqueue pending work'),
    );
  };
  connection.on('ready', recoverOnReady);
  // Not awaited: with Redis down these wait for it, and the daemon must start (and stop) anyway.
  nudges
    .poll('start')
    .catch((err) => log.warn({ event: 'queue.error', err }, 'could not enqueue the first poll'));
  if (config.snapshotDb) nudges.maintenance('snapshot', 'start').catch(() => {});
  if (config.retentionDays > 0) nudges.maintenance('prune', 'start').catch(() => {});

  const requests = serveRequests(actions); // what commands ask instead of writing beside it
  log.info(
    { event: 'daemon.started', pid: process.pid, config: describeConfig(config) },
    `supplier-sync running on ${config.dataDir}`,
  );

  let stopped: Promise<void> | undefined;
  return {
    async runNow(task) {
      if (stopped) throw new Error(`daemon stopped: cannot run ${task}`);
      if (task === 'inbox-scan') await sources.scanInbox();
      else if (task === 'settings-files')
        await Promise.all([profiles?.check(), stockRules.check()]);
      else if (task === 'notifications') await notifications.runNow();
      else await cron.run(task);
    },
    stop(reason) {
      stopped ??= (async () => {
        const started = clock.now();
        log.info(
          { event: 'daemon.stopping', reason },
          'stopping: no new work, finishing the call in flight',
        );
        connection.off('ready', recoverOnReady);
        await cron.stop();
        await requests.stop();
        profiles?.stop();
        stockRules.stop();
        await sources.stop();
        stopping.abort(new Error(`daemon stopping (${reason})`));
        const closed = await Promise.race([
          workers.close().then(() => true),
          new Promise<false>((r) => setTimeout(() => r(false), STOP_GRACE_MS).unref()),
        ]);
        client.close();
        await notifications.stop();
        heartbeat.stop();
        staleWatch.stop();
        compaction.stop();
        await http?.close();
        redis.stop();
        await closeQueues(queues);
        connection.disconnect();
        held.lock?.release();
        db.close();
        log.info(
          { event: 'daemon.stopped', reason, ms: clock.now() - started, clean: closed },
          'stopped',
        );
      })();
      return stopped;
    },
  };
}
