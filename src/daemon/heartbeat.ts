import { CLOCK_JUMP_MS } from '../domain/clockWatch.ts';
import { span } from '../domain/humanTime.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import type { Heartbeat } from '../state/kvKeys.ts';
import type { DiskWatch } from './diskWatch.ts';
import type { HeartbeatFile } from './heartbeatFile.ts';

export type { Heartbeat };

export const HEARTBEAT_EVERY_MS = 10_000;
/** A heartbeat older than this means the daemon is stuck or gone. */
export const HEARTBEAT_STALE_MS = 60_000;

/**
 * Why a heartbeat read at `now` says nothing of a running daemon — older than `staleAfterMs`, or
 * dated ahead of the reader's clock (by more than a clock step: the clock went back since, and a
 * daemon that runs has beaten again since it was noticed) — or undefined when it is fresh.
 */
export function heartbeatProblem(
  at: number,
  now: number,
  staleAfterMs = HEARTBEAT_STALE_MS,
): string | undefined {
  const age = now - at;
  if (-age > CLOCK_JUMP_MS)
    return `last heartbeat dated ${span(age)} ahead of this clock, which went back since`;
  if (age > staleAfterMs) return `last heartbeat ${Math.round(age / 1000)} s ago`;
  return undefined;
}

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
