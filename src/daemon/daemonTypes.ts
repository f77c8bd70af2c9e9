import type { Config } from '../config/index.ts';
import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../log/logger.ts';
import type { ScheduledTask } from './schedulePlan.ts';

/** What the daemon is started with, and what a started daemon offers (daemon.ts starts it). */

export interface DaemonOptions {
  readonly config: Config;
  readonly log: Logger;
  /** The wall clock (when); the monotonic one (how long) is the process's unless given. */
  readonly clock?: Clock;
  readonly monotonic?: () => number;
}

/**
 * Work the daemon does on its own at a schedule's tick, the inbox's periodic scan ('inbox-scan')
 * or the look at its watched settings files every 2 s ('settings-files': INBOX_PROFILES_FILE and
 * STOCK_RULES_FILE), by name.
 */
export type DaemonTask =
  | ScheduledTask
  | 'inbox-scan'
  | 'settings-files'
  | 'notifications'
  /** A heartbeat now, with its look at the disk (free space, and the errors writes met). */
  | 'heartbeat'
  /** /metrics' figures read afresh now, as its timer would (nothing without HTTP_PORT). */
  | 'metrics';

export interface Daemon {
  /**
   * Does now, out of turn, what a schedule's next tick, the next inbox scan or the next look at
   * the settings files would do (a tick only asks for work, deduplicated like any nudge);
   * resolves once it is asked for (the scan and the settings files: once they have been read).
   * The optional schedules (deadline, retention, snapshot) only when configured. For tools and
   * tests that must not wait for a tick.
   */
  runNow(task: DaemonTask): Promise<void>;
  /** Graceful stop: no new work, the call in flight finishes, everything closes. */
  stop(reason: string): Promise<void>;
}
