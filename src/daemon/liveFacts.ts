import { dataPaths } from '../config/dataPaths.ts';
import { type DiskState, decideDisk } from '../domain/diskState.ts';
import { freeSpaces, watchedPaths } from './diskSpace.ts';
import { HEARTBEAT_STALE_MS } from './heartbeat.ts';
import { readHeartbeatFile } from './heartbeatFile.ts';
import type { LiveFacts } from './status.ts';

/**
 * What a command (`status`, `health`) knows of the daemon beside state.db: the beat and disk
 * state in its heartbeat file (written while state.db cannot be), and the command's own look at
 * the disk (statfs of the data dir and state.db). The disk is full when the running daemon says
 * so (a write of its met a full disk) or when the command sees too little space itself (a daemon
 * that is not running says nothing).
 */
export async function readLiveFacts(dataDir: string, now: number): Promise<LiveFacts> {
  const file = readHeartbeatFile(dataPaths(dataDir).heartbeatFile);
  const spaces = await freeSpaces(watchedPaths(dataDir));
  const own = decideDisk(undefined, {
    now,
    spaces,
    dataDir,
    lastError: undefined,
    lastWriteOkAt: undefined,
  });
  const running = file !== undefined && now - file.at <= HEARTBEAT_STALE_MS;
  let disk: DiskState = own;
  if (running && file.disk.full) {
    const seen = spaces.find((s) => s.path === file.disk.path);
    disk = { ...file.disk, freeBytes: seen?.freeBytes ?? file.disk.freeBytes };
  }
  const beat =
    file === undefined ? null : { at: file.at, pid: file.pid, startedAt: file.startedAt };
  return { beat, disk };
}
