import { serveRequests } from '../actions/requests.ts';
import { createPortalClient, portalClientOptions } from '../api/index.ts';
import { configSecrets, describeConfig, ensureDataDirs } from '../config/index.ts';
import { systemClock } from '../domain/clock.ts';
import { startSchedules } from '../jobs/schedules.ts';
import { registerSecret } from '../log/redact.ts';
import { createNotifications } from '../notifications/index.ts';
import { openStateDb } from '../state/db.ts';
import { ownVerdict } from './assess.ts';
import { startBackground } from './background.ts';
import { watchClock } from './clockJumps.ts';
import type { Daemon, DaemonOptions } from './daemonTypes.ts';
import { diskFullAtStart } from './diskSpace.ts';
import { watchDaemonDisk } from './diskWatch.ts';
import { HeartbeatFile } from './heartbeatFile.ts';
import { connectJobs } from './jobsStart.ts';
import { askStartWork, daemonSchedules } from './schedulePlan.ts';
import { buildServices } from './services.ts';
import { loadSettingsFiles } from './settingsFiles.ts';
import { daemonActions, lockDataDir, type TakenLock, unlockingOnFailure } from './writerStart.ts';

export type { Daemon, DaemonOptions, DaemonTask } from './daemonTypes.ts';

/**
 * The daemon, the composition root: state.db, the portal client, the flows' services
 * (services.ts), queues and workers, the sources, the schedules and the daemon's own timers —
 * started in that order, stopped in reverse.
 */
export function startDaemon(options: DaemonOptions): Promise<Daemon> {
  // A start on a full disk fails with one line naming the path (DiskFullError), not SQLite's
  // "database or disk is full".
  return unlockingOnFailure((taken) => startLocked(options, taken)).catch(async (err: unknown) => {
    throw await diskFullAtStart(options.config.dataDir, err, options.log);
  });
}

async function startLocked(options: DaemonOptions, taken: TakenLock): Promise<Daemon> {
  const { config, log } = options;
  const clock = options.clock ?? systemClock;
  for (const secret of configSecrets(config)) registerSecret(secret);
  // NOTIFY_WEBHOOK_SECRET_FILE read first: the invalid settings files below also notify. A
  // broken profiles or rules file stops the start (exit 78) before anything is opened.
  const notifications = createNotifications(config, log);
  const settingsFiles = loadSettingsFiles(config, log, notifications.watchLog);
  // The console password too (CONSOLE_PASSWORD_FILE): unreadable or too short stops the start.
  const consolePassword = config.consolePasswordFile
    ? (await import('./console/consoleAuth.ts')).readConsolePassword(config.consolePasswordFile)
    : undefined;
  if (consolePassword !== undefined) registerSecret(consolePassword);
  const paths = await ensureDataDirs(config.dataDir);
  const db = openStateDb(paths.stateDb);
  // One writer per data dir, before anything is written: a second daemon exits 78 here.
  taken.lock = await lockDataDir(config.dataDir, db, log);
  // Before the first heartbeat: the last run's stamps dated ahead of the clock say it went back.
  const clockJumps = watchClock({ db, log, clock, monotonic: options.monotonic });
  const heartbeatFile = HeartbeatFile.open(paths.heartbeatFile);
  // The disk: full or not, in memory (state.db may be what cannot be written); a turn to full is
  // told at once, outside the outbox; space back asks for the work owed at once.
  const disk = watchDaemonDisk({
    dataDir: config.dataDir,
    log,
    now: clock.now,
    tell: (n) => notifications.tellAtOnce(n),
    reasons: () => verdictNow().reasons,
    spaceBack: async () => {
      await services.ingestion.resumeStagedApplies();
      await sources.scanInbox();
      if (jobs.redis.state().up) await jobs.recover('disk has space again');
    },
  });
  const verdictNow = () => ownVerdict(db, config, clock.now(), { beat: null, disk: disk.state() });
  notifications.start({ db, clock, readVerdict: verdictNow });
  const client = createPortalClient(
    portalClientOptions(config, { db, log, clock, lane: 'operator' }),
  );
  const stopping = new AbortController();

  const jobs = connectJobs({ config, log, clock, onDiskFull: (err) => disk.sawError(err) });
  const { nudges } = jobs;
  const asked = (what: string) => (err: unknown) =>
    log.warn({ event: 'queue.error', err }, `could not enqueue ${what}`);
  // Stored keys worked out again if the rules differ from the last run's; at every change too.
  settingsFiles.stockRules.attach(db, clock, (keys) => {
    nudges.push(`stock rules changed (${keys} keys)`).catch(asked('a push'));
  });
  const services = buildServices({
    config,
    db,
    log,
    clock,
    client,
    signal: stopping.signal,
    settingsFiles,
    carriedMs: clockJumps.carriedMs,
  });
  await services.shipments.recoverOutbox();
  await jobs.startWorkers(services);
  const sources = await services.ingestion.startSources({
    onFile: (name, identity) => nudges.ingest(name, identity),
    onSnapshotChange: () => nudges.maintenance('snapshot', 'snapshot changed'),
  });
  const cron = startSchedules(
    daemonSchedules(config, nudges, async () => {
      // An apply left half merged is finished (no Redis needed). While Redis is down its nudges
      // would only wait in the connection's queue; the 'ready' below re-derives the work.
      await services.ingestion.resumeStagedApplies();
      if (jobs.redis.state().up) await jobs.recover('periodic recovery');
    }),
    { timezone: config.timezone, log, watch: clockJumps.watch },
  );
  const background = startBackground({ config, db, log, clock, disk, heartbeatFile });
  clockJumps.onJump(() => void background.heartbeat.beat());
  clockJumps.onJump((jump) => jump.jumpMs < 0 && jobs.replanTimers('clock.jump'));
  const actions = daemonActions({ db, config, now: clock.now, log }, nudges);
  // The HTTP server, console and metrics are loaded only with HTTP_PORT (density: idle daemons skip them).
  const http =
    config.httpPort > 0
      ? await (await import('./httpServer.ts')).startHttpServer({
          port: config.httpPort,
          host: config.httpHost,
          db,
          config,
          queues: jobs.queues,
          redis: jobs.redis,
          log,
          now: clock.now,
          consolePassword,
          nudge: actions.nudge,
          live: () => ({ beat: background.heartbeat.last(), disk: disk.state() }),
        })
      : undefined;

  // Work that was pending when the daemon last stopped (or that Redis lost) is asked for again.
  jobs.recoverOnReconnect();
  askStartWork(config, nudges, asked);

  const requests = serveRequests(actions); // what commands ask instead of writing beside it
  log.info(
    { event: 'daemon.started', pid: process.pid, config: describeConfig(config) },
    `supplier-sync running on ${config.dataDir}`,
  );

  let stopped: Promise<void> | undefined;
  return {
    async runNow(task) {
      if (stopped) throw new Error(`daemon stopped: cannot run ${task}`);
      clockJumps.watch.now(); // as a schedule's look at the clock: a jump is noticed first
      if (task === 'inbox-scan') await sources.scanInbox();
      else if (task === 'settings-files') await settingsFiles.check();
      else if (task === 'notifications') await notifications.runNow();
      else if (task === 'heartbeat') await background.heartbeat.beat();
      else if (task === 'metrics') await http?.refreshMetrics();
      else await cron.run(task);
    },
    stop(reason) {
      stopped ??= (async () => {
        const started = clock.now();
        log.info(
          { event: 'daemon.stopping', reason },
          'stopping: no new work, finishing the call in flight',
        );
        await cron.stop();
        await requests.stop();
        settingsFiles.stop();
        await sources.stop();
        stopping.abort(new Error(`daemon stopping (${reason})`));
        const closed = await jobs.closeWorkers();
        client.close();
        await notifications.stop();
        background.stop();
        heartbeatFile.close();
        await http?.close();
        await jobs.close();
        taken.lock?.release();
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
