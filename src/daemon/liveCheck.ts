import { bytesText, type DiskState } from '../domain/diskState.ts';
import type { Heartbeat } from '../state/kvKeys.ts';
import { HEARTBEAT_STALE_MS } from './heartbeat.ts';

/**
 * `health --live`: whether the daemon's process answers — what a liveness probe asks, since a
 * restart mends a stuck process but never a full disk, a Redis away or a portal that refuses.
 * Nothing but the process counts: Redis is not asked.
 *
 * The process answers when it holds the data dir's writer lock (the kernel lets go of that lock
 * the moment the process ends, however it ends: a daemon stopped or killed is not live a moment
 * later) and its heartbeat is recent (HEARTBEAT_STALE_MS: its event loop runs) — the one in
 * state.db or the one in its heartbeat file, which it rewrites in place while state.db cannot be
 * written. With the disk full and neither recent (a copy-on-write file system may refuse even the
 * file's rewrite), holding the lock is enough: a restart cannot free the disk. Where the lock
 * cannot be looked at (no state.db), the heartbeat alone decides.
 */
export interface LiveProbes {
  /** The heartbeats found (state.db's, the heartbeat file's); null where there is none. */
  readonly beats: ReadonlyArray<Heartbeat | null>;
  readonly disk: DiskState | null;
  /** Who holds the data dir's writer lock now; undefined when it could not be looked at. */
  readonly lock: () =>
    | { readonly held: boolean; readonly daemon?: boolean; readonly holder?: string }
    | undefined;
  readonly now: number;
}

export interface LiveReport {
  readonly live: boolean;
  /** Why, in one line. */
  readonly reason: string;
  /** Age of the freshest heartbeat in milliseconds; null when there is none. */
  readonly heartbeatAgeMs: number | null;
  readonly disk: DiskState | null;
  readonly checkedAt: number;
}

export function checkLive(p: LiveProbes): LiveReport {
  const ages = p.beats.filter((b): b is Heartbeat => b !== null).map((b) => p.now - b.at);
  const age = ages.length === 0 ? null : Math.max(0, Math.min(...ages));
  const report = (live: boolean, reason: string): LiveReport => ({
    live,
    reason,
    heartbeatAgeMs: age,
    disk: p.disk,
    checkedAt: p.now,
  });
  const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
  const lock = p.lock();
  if (lock !== undefined && !lock.held)
    return report(false, "no process holds the data dir's writer lock: the daemon is not running");
  if (lock !== undefined && lock.daemon === false)
    return report(false, `the data dir's writer lock is held by ${lock.holder}, not by a daemon`);
  if (age !== null && age <= HEARTBEAT_STALE_MS)
    return report(true, `the daemon's heartbeat is ${seconds(age)} old`);
  const silent = age === null ? 'no heartbeat yet' : `no heartbeat for ${seconds(age)}`;
  if (p.disk?.full && lock?.held) {
    return report(
      true,
      `${silent}, but the disk holding ${p.disk.path} is full (${bytesText(p.disk.freeBytes)} free) and ${lock.holder ?? 'the daemon'} holds the data dir's writer lock: a restart cannot free the disk`,
    );
  }
  return report(false, silent);
}
