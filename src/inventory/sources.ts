import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { finishHeldDecisions } from './held/finishDecisions.ts';
import { fileIdentity, type InboxEntry } from './inbox/inboxNames.ts';
import { InboxWatcher, type InboxWatcherOptions } from './inbox/inboxWatcher.ts';
import { recoverInbox } from './ingest/recover.ts';
import { SnapshotWatcher } from './snapshot/watcher.ts';

/** The watchers of the ERP's sources, while they run. */
export interface Sources {
  /** Looks at every entry of inbox/ now, as the periodic scan does. */
  scanInbox(): Promise<void>;
  stop(): Promise<void>;
}

export interface SourceDeps {
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  readonly dataDir: string;
  /** How inbox/ is watched (INBOX_STABILITY_MS, INBOX_POLLING, …). */
  readonly watch: Pick<
    InboxWatcherOptions,
    'stabilityMs' | 'polling' | 'pollIntervalMs' | 'scanIntervalMs'
  >;
  /** SNAPSHOT_DB: the ERP snapshot watched for changes; unset: none. */
  readonly snapshotDb: string | undefined;
}

/** What a source says when it has work: a file ready in inbox/, a snapshot that changed. */
export interface SourceEvents {
  /** A file is ready to be read (the same file may be offered again: `identity` tells). */
  readonly onFile: (name: string, identity: string) => Promise<unknown>;
  readonly onSnapshotChange: () => Promise<unknown>;
}

/**
 * Where the ERP's wishes come from: the inbox (every ready file is offered, keyed by the file's
 * identity) and, with SNAPSHOT_DB set, the snapshot (a change is offered). Before watching, files
 * a crash left half handled are finished, and so are held files whose release or reject a crash
 * cut short.
 */
export async function startSources(deps: SourceDeps, events: SourceEvents): Promise<Sources> {
  const { db, log, clock, dataDir } = deps;
  await recoverInbox({ db, log, dataDir, clock });
  await finishHeldDecisions({ db, log, dataDir, now: clock.now });

  const inbox = new InboxWatcher({
    dataDir,
    ...deps.watch,
    log,
    clock,
    onFile: async (entry: InboxEntry) => {
      try {
        await events.onFile(entry.name, fileIdentity(entry));
      } catch (err) {
        log.warn(
          { event: 'queue.error', file: entry.name, err },
          `could not enqueue ${entry.name}; the next scan offers it again`,
        );
      }
    },
  });
  await inbox.start();

  const snapshot = deps.snapshotDb
    ? new SnapshotWatcher({
        path: deps.snapshotDb,
        log,
        polling: deps.watch.polling,
        pollIntervalMs: deps.watch.pollIntervalMs,
        onChange: events.onSnapshotChange,
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
