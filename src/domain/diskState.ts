/**
 * Whether the disk holding the data dir (SYNC_DATA_DIR) or state.db is full, decided from what
 * the daemon sees: the free space of each (statfs) and the errors its writes meet (SQLITE_FULL,
 * ENOSPC: failures/failurePolicy.ts isDiskFull). Pure: the daemon's disk watch
 * (daemon/diskWatch.ts) looks, this decides, and `status`, `health` and the console say it.
 */

/** The disk as `status`, `health --json` and the console show it. */
export interface DiskState {
  /** The folder (the data dir) or file (state.db, when it lies on another disk) that is full, or the data dir when none is. */
  readonly path: string;
  /** Bytes free there for the daemon; null when they could not be read. */
  readonly freeBytes: number | null;
  readonly full: boolean;
  /** Epoch ms since when it is full; null when it is not. */
  readonly since: number | null;
}

/** What statfs says of one watched path. */
export interface FreeSpace {
  readonly path: string;
  /** Bytes this process may still write there (the root-reserved blocks count for root only). */
  readonly freeBytes: number;
  /** Inodes free there; null where the file system does not count them (btrfs). */
  readonly freeInodes: number | null;
}

/**
 * Below this many free bytes a disk counts as full: SQLite grows state.db and its log by pages,
 * a file's scratch database and report take more, and an operator should hear of it before every
 * write fails.
 */
export const DISK_FULL_BELOW_BYTES = 1024 * 1024;

/**
 * How long after the last disk-full error a disk counts as full, even when its free space looks
 * fine: one large write (a file's merge) may need more than the space there is, while small ones
 * (the heartbeat) pass. Work that met the error retries every 10 s, so a disk that stays too full
 * for it stays full here.
 */
export const DISK_ERROR_QUIET_MS = 20_000;

/** What one look at the disk found. */
export interface DiskLook {
  readonly now: number;
  /** Each watched path's free space, the data dir first (a path that could not be read is left out). */
  readonly spaces: readonly FreeSpace[];
  /** The data dir: the path named when nothing names another. */
  readonly dataDir: string;
  /** The last disk-full error met by a write (and the watched path it names, when known). */
  readonly lastError: { readonly at: number; readonly path: string | undefined } | undefined;
  /** When a write to state.db last succeeded (the heartbeat). */
  readonly lastWriteOkAt: number | undefined;
}

/** Less than DISK_FULL_BELOW_BYTES, or no inode, free there. */
export const tooLittle = (s: FreeSpace): boolean =>
  s.freeBytes < DISK_FULL_BELOW_BYTES || s.freeInodes === 0;

/**
 * The disk's state after a look. Full when a watched path has less than DISK_FULL_BELOW_BYTES
 * (or no inode) free, or when a write met a disk-full error and no write has succeeded since or
 * DISK_ERROR_QUIET_MS have not passed. `since` is kept while it stays full.
 */
export function decideDisk(previous: DiskState | undefined, look: DiskLook): DiskState {
  const short = look.spaces.filter(tooLittle).sort((a, b) => a.freeBytes - b.freeBytes)[0];
  const err = look.lastError;
  const errorHolds =
    err !== undefined &&
    (look.now - err.at < DISK_ERROR_QUIET_MS ||
      look.lastWriteOkAt === undefined ||
      look.lastWriteOkAt <= err.at);
  const full = short !== undefined || errorHolds;
  const named = short ?? spaceOf(look, err?.path) ?? look.spaces[0];
  return {
    path: named?.path ?? err?.path ?? look.dataDir,
    freeBytes: named?.freeBytes ?? null,
    full,
    since: full ? (previous?.full ? previous.since : look.now) : null,
  };
}

function spaceOf(look: DiskLook, path: string | undefined): FreeSpace | undefined {
  return path === undefined ? undefined : look.spaces.find((s) => s.path === path);
}

/** "1.5 MiB", "512 bytes": free space for a person. */
export function bytesText(n: number | null): string {
  if (n === null) return 'an unknown amount';
  if (n < 1024) return `${n} bytes`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 10 ? Math.round(v) : Math.round(v * 10) / 10} ${units[i]}`;
}

/** The reason a verdict gives for a full disk: the path, what is free, what to do. */
export function diskFullReason(disk: DiskState): string {
  return `the disk holding ${disk.path} is full (${bytesText(disk.freeBytes)} free): nothing can be recorded; free space there and the daemon goes on by itself within a minute (a restart does not help)`;
}
