import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import type { Heartbeat } from '../state/kvKeys.ts';
import type { DiskWatch } from './diskWatch.ts';
import type { HeartbeatFile } from './heartbeatFile.ts';

export type { Heartbeat };

export const HEARTBEAT_EVERY_MS = 10_000;
/** A heartbeat older than this means the daemon is stuck or gone. */
export const HEARTBEAT_STALE_MS = 60_000;

/** The daemon's beat, running. */
export interface RunningHeartbeat {
  /** The last beat (in memory: also when state.db could not take it). */
  last(): Heartbeat;
  /** Beats now (a look at the disk included); resolves once it is written where it can be. */
  beat(): Promise<void>;
  stop(): void;
}

/**
 * Writes the daemon's heartbeat to state.db every HEARTBEAT_EVERY_MS until stopped. With a disk
 * watch, each beat is also a look at the disk: a write that succeeded or met a full disk is told
 * to it, then it looks (statfs); with a heartbeat file, the beat and the disk's state are written
 * there too (heartbeatFile.ts: it goes on while state.db cannot be written).
 */
export function startHeartbeat(
  db: StateDb,
  now: () => number = Date.now,
  onError: (err: unknown) => void = () => {},
  watch: { readonly disk?: DiskWatch; readonly file?: HeartbeatFile } = {},
): RunningHeartbeat {
  const kv = new KeyValueStore(db);
  const startedAt = now();
  let last: Heartbeat = { at: startedAt, pid: process.pid, startedAt };
  let fileFailed = false;
  const beat = async () => {
    last = { at: now(), pid: process.pid, startedAt };
    try {
      kv.set('daemon.heartbeat', last);
      watch.disk?.wroteOk();
    } catch (err) {
      // A full disk is the disk watch's to tell; anything else (a busy database this once) is
      // told here, and the next beat tries again.
      if (!watch.disk?.sawError(err)) onError(err);
    }
    const disk = watch.disk === undefined ? undefined : await watch.disk.look();
    if (watch.file === undefined || disk === undefined) return;
    try {
      watch.file.write({ ...last, disk });
      fileFailed = false;
    } catch (err) {
      if (!fileFailed) onError(err); // once until it works again
      fileFailed = true;
    }
  };
  const safeBeat = () => beat().catch(onError);
  void safeBeat();
  const timer = setInterval(safeBeat, HEARTBEAT_EVERY_MS);
  timer.unref();
  return {
    last: () => last,
    beat: safeBeat,
    stop: () => clearInterval(timer),
  };
}
