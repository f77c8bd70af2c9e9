import { CLOCK_JUMP_MS } from '../domain/clockWatch.ts';
import { span } from '../domain/humanTime.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import type { Heartbeat } from '../state/kvKeys.ts';

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

/**
 * Writes the daemon's heartbeat to state.db every HEARTBEAT_EVERY_MS until stopped, and at once
 * on `beat()` (after a clock jump: a heartbeat dated ahead of the clock reads as stale).
 */
export function startHeartbeat(
  db: StateDb,
  now: () => number = Date.now,
  onError: (err: unknown) => void = () => {},
): { stop(): void; beat(): void } {
  const kv = new KeyValueStore(db);
  const startedAt = now();
  const beat = () => {
    try {
      kv.set('daemon.heartbeat', { at: now(), pid: process.pid, startedAt } satisfies Heartbeat);
    } catch (err) {
      onError(err); // a busy database this once: the next beat tries again
    }
  };
  beat();
  const timer = setInterval(beat, HEARTBEAT_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer), beat };
}
