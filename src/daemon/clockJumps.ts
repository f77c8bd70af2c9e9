import { carryRollingHours } from '../api/index.ts';
import type { Clock } from '../domain/clock.ts';
import { CLOCK_JUMP_MS, type ClockJump, ClockWatch } from '../domain/clockWatch.ts';
import { span } from '../domain/humanTime.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { carryDueTimes } from '../state/dueTimes.ts';
import { KeyValueStore } from '../state/kv.ts';

/** What a jump sets going besides the re-stamps (a promise is waited for, its failure logged). */
export type ClockJumpReaction = (jump: ClockJump) => unknown;

export interface ClockJumps {
  /** The wall clock watched against the monotonic one (the schedules look at it). */
  readonly watch: ClockWatch;
  /**
   * How far the times of inbox files and snapshot reads are carried, in ms: how far the clock has
   * gone back in all, as noticed (the clock is looked at first, so a jump just made counts).
   */
  carriedMs(): number;
  /** Runs `reaction` after every jump from now on, outside whatever noticed it. */
  onJump(reaction: ClockJumpReaction): void;
}

/**
 * The daemon's two clocks and what a jump between them sets going. A jump is logged as
 * `clock.jump` (warn, `jumpMs` signed: positive forward); one backwards is added to the carried
 * time of sources (kv `clock.carried_ms`); the rolling hours' stamps are carried
 * (api/rollingHours.ts), and so are the due times of retries kept in state.db (state/dueTimes.ts);
 * then the reactions run (the heartbeat, BullMQ's timers). The schedules
 * re-plan on their own at their next look. A start notices a jump back made while the daemon was
 * stopped by what the last run wrote last (its heartbeat, its last file, its last snapshot read),
 * dated ahead of the clock: logged with `noticedBy: "start"` and `jumpMs` at least that far back.
 */
export function watchClock(parts: {
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  readonly monotonic?: () => number;
}): ClockJumps {
  const { db, log, clock } = parts;
  const kv = new KeyValueStore(db);
  const watch = new ClockWatch(clock, parts.monotonic);
  const reactions: ClockJumpReaction[] = [];
  let carried = kv.get('clock.carried_ms') ?? 0;

  const failed = (what: string) => (err: unknown) =>
    log.warn({ event: 'clock.jump_failed', err }, `after a clock jump, ${what} failed`);
  const told = (jump: ClockJump, noticedBy: 'watch' | 'start') => {
    const back = jump.jumpMs < 0;
    log.warn(
      {
        event: 'clock.jump',
        jumpMs: jump.jumpMs,
        at: new Date(jump.at).toISOString(),
        before: new Date(jump.before).toISOString(),
        noticedBy,
      },
      `the clock ${back ? 'went back' : 'jumped forward'} ${span(jump.jumpMs)}: every schedule re-planned, stamps ahead of it re-stamped`,
    );
    if (back) {
      carried -= jump.jumpMs;
      kv.set('clock.carried_ms', carried, jump.at);
    }
    // Not inside whatever looked at the clock (it may be in a transaction of its own).
    setImmediate(() => {
      try {
        carryRollingHours(db, jump);
        carryDueTimes(db, jump.jumpMs, jump.at);
      } catch (err) {
        failed('carrying the rolling hours and due times')(err);
      }
      for (const reaction of reactions) {
        Promise.resolve()
          .then(() => reaction(jump))
          .catch(failed('a reaction'));
      }
    });
  };
  watch.onJump((jump) => told(jump, 'watch'));

  // The latest the last run wrote by the wall clock: its heartbeat, its last file, its last
  // snapshot read. Later than now: the clock went back at least that far since.
  const latest = Math.max(
    kv.get('daemon.heartbeat')?.at ?? 0,
    kv.get('last.ingest')?.at ?? 0,
    kv.get('snapshot.applied_at') ?? 0,
  );
  const now = clock.now();
  if (latest - now > CLOCK_JUMP_MS) {
    told({ jumpMs: now - latest, at: now, before: latest, elapsedMs: 0 }, 'start');
  }

  return {
    watch,
    carriedMs() {
      watch.now();
      return carried;
    },
    onJump(reaction) {
      reactions.push(reaction);
    },
  };
}
