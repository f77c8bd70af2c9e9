import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { PendingStock } from '../state/stock/pendingStock.ts';
import { StockFailures } from '../state/stock/stockFailures.ts';

export interface StaleState {
  readonly stale: boolean;
  /** Epoch ms of the oldest pending stock difference; null when nothing is pending. */
  readonly pendingSince: number | null;
  /** Epoch ms of the last push that sent something; null when none is recorded. */
  readonly lastPushSuccess: number | null;
}

/**
 * Whether the sync is stale: there are pending differences (pending_stock is not empty), and for
 * `staleAfterMs` neither has a push succeeded nor has the oldest pending difference been young
 * (a difference the ERP asked for a minute ago is not stale, whenever the last push was).
 */
export function checkStale(db: StateDb, staleAfterMs: number, now: number): StaleState {
  const pendingSince = new PendingStock(db).oldestSince();
  const lastPushSuccess = new KeyValueStore(db).get('last.push_success') ?? null;
  const old = (at: number | null) => at === null || now - at >= staleAfterMs;
  const stale = pendingSince !== null && old(pendingSince) && old(lastPushSuccess);
  return { stale, pendingSince, lastPushSuccess };
}

export interface StaleWatchOptions {
  readonly db: StateDb;
  readonly log: Logger;
  /** SYNC_STALE_AFTER_MS. */
  readonly staleAfterMs: number;
  /** How often to check, in milliseconds; also the shortest gap between two sync.stale lines. */
  readonly everyMs: number;
  readonly now?: () => number;
}

export interface StaleWatch {
  /** Checks now (the timer does this every `everyMs`), logs as needed and returns the state. */
  check(): StaleState;
  stop(): void;
}

/**
 * Watches for a stale sync: logs `sync.stale` (warn, with the pending counts) at each check while
 * stale — so at most once per `everyMs` — and `sync.recovered` once when it clears.
 */
export function startStaleWatch(options: StaleWatchOptions): StaleWatch {
  const { db, log, staleAfterMs, everyMs } = options;
  const now = options.now ?? Date.now;
  let staleSince: number | null = null;
  let lastWarnAt = Number.NEGATIVE_INFINITY;

  function check(): StaleState {
    const t = now();
    const state = checkStale(db, staleAfterMs, t);
    if (state.stale) {
      staleSince ??= t;
      if (t - lastWarnAt >= everyMs) {
        lastWarnAt = t;
        const pending = new PendingStock(db).counts();
        const failures = new StockFailures(db).count();
        const since = Math.max(state.pendingSince ?? t, state.lastPushSuccess ?? 0);
        log.warn(
          {
            event: 'sync.stale',
            pending,
            failures: failures.total,
            pendingSince: state.pendingSince,
            lastPushSuccess: state.lastPushSuccess,
            waitingMs: t - since,
            staleAfterMs,
          },
          `stock differences pending (${pending.factory} factory, ${pending.dc} DC) with no successful push for ${Math.round((t - since) / 60_000)} min`,
        );
      }
    } else if (staleSince !== null) {
      log.info(
        {
          event: 'sync.recovered',
          staleForMs: t - staleSince,
          pendingSince: state.pendingSince,
          lastPushSuccess: state.lastPushSuccess,
        },
        'stock sync caught up again',
      );
      staleSince = null;
      lastWarnAt = Number.NEGATIVE_INFINITY;
    }
    return state;
  }

  const timer = setInterval(() => {
    try {
      check();
    } catch (err) {
      log.warn({ event: 'stale_watch.failed', err }, 'could not check for a stale sync');
    }
  }, everyMs);
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}
