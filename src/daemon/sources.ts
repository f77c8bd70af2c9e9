import type { Config } from '../config/index.ts';
import type { Clock } from '../domain/clock.ts';
import type { LocationMap } from '../domain/stockRules.ts';
import {
  type DcDirectory,
  fileIdentity,
  finishHeldDecisions,
  guardThresholds,
  InboxWatcher,
  readSnapshot,
  recoverInbox,
  SnapshotReadError,
  SnapshotWatcher,
} from '../inventory/index.ts';
import type { Nudges } from '../jobs/nudges.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';

export interface Sources {
  /** Looks at every entry of inbox/ now, as the periodic scan does. */
  scanInbox(): Promise<void>;
  stop(): Promise<void>;
}

interface SourceDeps {
  readonly config: Config;
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  readonly dcDirectory: DcDirectory;
  /** The stock rules' `locations` now in force (ERP location code → portal DC code). */
  readonly locations?: () => LocationMap;
  /** Reads the portal's stock of a kind (SNAPSHOT_ABSENT=zero where it was never read). */
  readonly readPortalStock?: (kind: 'factory' | 'dc') => Promise<boolean>;
}

/**
 * Reads the ERP snapshot (SNAPSHOT_DB) into desired stock; true when keys now differ from the
 * portal. A failed read throws, so that its job is retried with back-off; a read the guard rails
 * hold is not a failure (read again on the next change or schedule).
 */
export async function readSnapshotSource(deps: SourceDeps): Promise<boolean> {
  const { config } = deps;
  if (!config.snapshotDb) return false;
  const outcome = await readSnapshot({
    db: deps.db,
    log: deps.log,
    clock: deps.clock,
    snapshotDb: config.snapshotDb,
    factoryQuery: config.snapshotFactoryQuery,
    dcQuery: config.snapshotDcQuery,
    dcDirectory: deps.dcDirectory,
    maxSkuLength: config.maxSkuLength,
    ...(deps.locations ? { locations: deps.locations() } : {}),
    absent: config.snapshotAbsent,
    ...(deps.readPortalStock ? { readPortalStock: deps.readPortalStock } : {}),
    dataDir: config.dataDir,
    guard: guardThresholds(config),
  });
  if (outcome.status === 'failed') throw new SnapshotReadError(outcome.code, outcome.reason);
  // A held read changed nothing: no push to ask for.
  if (outcome.status === 'held') return false;
  return outcome.pendingKeys > 0;
}

/**
 * Where the ERP's wishes come from: the inbox (every ready file becomes an ingest job keyed by
 * the file's identity) and, with SNAPSHOT_DB set, the snapshot (a change asks for a read).
 */
export async function startSources(
  deps: SourceDeps & { readonly nudges: Nudges },
): Promise<Sources> {
  const { config, db, log, clock, nudges } = deps;
  await recoverInbox({ db, log, dataDir: config.dataDir, clock });
  // Released or rejected held files whose move a crash cut short (before the inbox is watched).
  await finishHeldDecisions({ db, log, dataDir: config.dataDir, now: clock.now });

  const inbox = new InboxWatcher({
    dataDir: config.dataDir,
    stabilityMs: config.inboxStabilityMs,
    polling: config.inboxPolling,
    pollIntervalMs: config.inboxPollIntervalMs,
    scanIntervalMs: config.inboxScanIntervalMs,
    log,
    clock,
    onFile: async (entry) => {
      try {
        await nudges.ingest(entry.name, fileIdentity(entry));
      } catch (err) {
        log.warn(
          { event: 'queue.error', file: entry.name, err },
          `could not enqueue ${entry.name}; the next scan offers it again`,
        );
      }
    },
  });
  await inbox.start();

  const snapshotDb = config.snapshotDb;
  const snapshot = snapshotDb
    ? new SnapshotWatcher({
        path: snapshotDb,
        log,
        polling: config.inboxPolling,
        pollIntervalMs: config.inboxPollIntervalMs,
        onChange: () => nudges.maintenance('snapshot', 'snapshot changed'),
      })
    : undefined;
  await snapshot?.start();

  return {
    scanInbox: () => inbox.scan(),
    async stop() {
      await Promise.allSettled([inbox.stop(), snapshot?.stop()]);
    },
  };
}
