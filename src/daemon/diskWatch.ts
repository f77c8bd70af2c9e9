import { bytesText, type DiskState, decideDisk } from '../domain/diskState.ts';
import { diskFullNotification, type Notification } from '../domain/notification.ts';
import { isDiskFull } from '../failures/failurePolicy.ts';
import type { Logger } from '../log/logger.ts';
import { freeSpaces, watchedPaths } from './diskSpace.ts';

/**
 * The daemon's watch over its disk: whether the disk holding the data dir or state.db is full,
 * from the free space of each (statfs, at every look) and from the errors writes meet (a job's,
 * the heartbeat's: failures/failurePolicy.ts isDiskFull). The decision is domain/diskState.ts;
 * this keeps the state in memory (state.db may be what cannot be written), logs each turn —
 * `disk.full` (error) with `path` and `freeBytes`, `disk.ok` (info) when space returns — and
 * tells the daemon (`onFull`: a notification sent directly; `onOk`: the work owed asked for
 * again, the notification recorded).
 */
export interface DiskWatch {
  /** The disk as last looked at. */
  state(): DiskState;
  /** A write failed: when the error says the disk is full, the next look counts it; true then. */
  sawError(err: unknown): boolean;
  /** A write to state.db succeeded (the heartbeat). */
  wroteOk(): void;
  /** Looks now: statfs of each watched path, then the decision and, on a turn, its line. */
  look(): Promise<DiskState>;
}

export interface DiskWatchDeps {
  readonly dataDir: string;
  /** The paths whose disks are watched (diskSpace.ts watchedPaths): the data dir first. */
  readonly paths: readonly string[];
  readonly log: Logger;
  readonly now: () => number;
  readonly onFull?: (disk: DiskState) => void;
  readonly onOk?: (disk: DiskState) => void;
}

export function createDiskWatch(deps: DiskWatchDeps): DiskWatch {
  const { log, now } = deps;
  let state: DiskState = { path: deps.dataDir, freeBytes: null, full: false, since: null };
  let lastError: { at: number; path: string | undefined } | undefined;
  let lastWriteOkAt: number | undefined;
  let looking: Promise<DiskState> | undefined;

  const look = async (): Promise<DiskState> => {
    const spaces = await freeSpaces(deps.paths);
    const next = decideDisk(state, {
      now: now(),
      spaces,
      dataDir: deps.dataDir,
      lastError,
      lastWriteOkAt,
    });
    const was = state;
    state = next;
    if (next.full && !was.full) {
      log.error(
        { event: 'disk.full', path: next.path, freeBytes: next.freeBytes },
        `the disk holding ${next.path} is full (${bytesText(next.freeBytes)} free): nothing can be recorded until space is freed there`,
      );
      deps.onFull?.(next);
    } else if (!next.full && was.full) {
      const fullForMs = was.since === null ? null : now() - was.since;
      log.info(
        { event: 'disk.ok', path: was.path, freeBytes: next.freeBytes, fullForMs },
        `the disk holding ${was.path} has space again (${bytesText(next.freeBytes)} free): work goes on`,
      );
      deps.onOk?.(next);
    }
    return next;
  };

  return {
    state: () => state,
    sawError(err) {
      if (!isDiskFull(err)) return false;
      // The watched path the error names, when it names one (an ENOSPC's path; SQLite's none):
      // the longest that holds it.
      const path = (err as { path?: unknown }).path;
      const named = deps.paths
        .filter((p) => typeof path === 'string' && path.startsWith(p))
        .sort((a, b) => b.length - a.length)[0];
      lastError = { at: now(), path: named };
      return true;
    },
    wroteOk() {
      lastWriteOkAt = now();
    },
    look() {
      // One look at a time: a look asked for while one runs gets that one's answer.
      looking ??= look().finally(() => {
        looking = undefined;
      });
      return looking;
    },
  };
}

/**
 * The running daemon's disk watch over its data dir (and state.db's disk): a turn to full is told
 * at once, outside the notification outbox (`tell`, with the verdict's reasons now); space back
 * asks for the work owed (`spaceBack`: resumed applies, a scan of the inbox, the recovery).
 */
export function watchDaemonDisk(parts: {
  readonly dataDir: string;
  readonly log: Logger;
  readonly now: () => number;
  readonly tell: (n: Notification) => Promise<void>;
  readonly reasons: () => readonly string[];
  readonly spaceBack: () => Promise<void>;
}): DiskWatch {
  const { log, now } = parts;
  return createDiskWatch({
    dataDir: parts.dataDir,
    paths: watchedPaths(parts.dataDir),
    log,
    now,
    onFull: (state) => void parts.tell(diskFullNotification(state, parts.reasons(), now())),
    onOk: () => {
      parts
        .spaceBack()
        .catch((err) =>
          log.warn({ event: 'recover.failed', err }, 'could not ask for the work owed'),
        );
    },
  });
}
