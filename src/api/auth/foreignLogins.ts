import type { StateDb } from '../../state/db.ts';
import { KeyValueStore } from '../../state/kv.ts';
import { HOUR_MS } from '../budget/decide.ts';

/** Invalidations within the hour from which they are "repeated" and logged as api.foreign_login. */
export const FOREIGN_LOGIN_REPEATS = 2;

const KEY = 'api.foreign_logins';

export interface ForeignLogins {
  /** Token invalidations after good calls over the last rolling hour. */
  readonly lastHour: number;
  /** Epoch ms of the latest one in that hour; null when none. */
  readonly lastAt: number | null;
}

/**
 * Records that the portal refused a token that had served calls (someone else logged in with
 * the account; the portal keeps one valid token per account), once per token across processes,
 * and returns the count over the last hour. `tokenObtainedAt` names the token without storing it.
 */
export function recordForeignLogin(
  db: StateDb,
  now: number,
  tokenObtainedAt: number,
): ForeignLogins {
  const kv = new KeyValueStore(db);
  const run = db.transaction((): ForeignLogins => {
    const recent = (kv.get(KEY) ?? []).filter((e) => e.at > now - HOUR_MS);
    if (!recent.some((e) => e.tokenObtainedAt === tokenObtainedAt)) {
      recent.push({ at: now, tokenObtainedAt });
    }
    kv.set(KEY, recent, now);
    return summary(recent);
  });
  return run.immediate();
}

/** The count over the last hour, read only. */
export function readForeignLogins(db: StateDb, now: number): ForeignLogins {
  return summary((new KeyValueStore(db).get(KEY) ?? []).filter((e) => e.at > now - HOUR_MS));
}

function summary(recent: ReadonlyArray<{ at: number }>): ForeignLogins {
  return {
    lastHour: recent.length,
    lastAt: recent.length === 0 ? null : Math.max(...recent.map((e) => e.at)),
  };
}
