import type { ClockJump } from '../domain/clockWatch.ts';
import { AuthStore } from '../state/calls/authStore.ts';
import { CallLog } from '../state/calls/callLog.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { HOUR_MS } from './budget/decide.ts';

export interface CarriedStamps {
  readonly calls: number;
  readonly logins: number;
}

/**
 * The rolling hours (calls, logins) count the time that really passed. Their records outlive a
 * run, so they are stamped in wall time; when the clock jumps they are carried:
 *
 * - back: a record stamped ahead of the clock is re-stamped to the moment the jump is noticed,
 *   once, and leaves the hour an hour later. The budget's and the login cap's own decisions do
 *   the same for what they count, so a call or login decided before the jump is noticed (or at a
 *   start, where nobody saw the jump) re-stamps too.
 * - forward: a record of the hour before the jump moves forward with the clock (never past the
 *   moment it is noticed), keeping the age it really has: the portal counts real time.
 *
 * The portal's last count, the re-login spacing's last login and the foreign logins of the hour
 * are carried alike. Returns how many calls and login attempts moved.
 */
export function carryRollingHours(db: StateDb, jump: ClockJump): CarriedStamps {
  const calls = new CallLog(db);
  const auth = new AuthStore(db);
  const kv = new KeyValueStore(db);
  const run = db.transaction((): CarriedStamps => {
    if (jump.jumpMs < 0) {
      carryKvStamps(kv, (at) => Math.min(at, jump.at), jump.at);
      return { calls: calls.restampAhead(jump.at), logins: auth.restampAttemptsAhead(jump.at) };
    }
    const unjumped = jump.at - jump.jumpMs;
    const after = unjumped - HOUR_MS;
    const carry = (at: number) =>
      at > after && at <= unjumped ? Math.min(at + jump.jumpMs, jump.at) : at;
    carryKvStamps(kv, carry, jump.at);
    return {
      calls: calls.shift(after, unjumped, jump.jumpMs, jump.at),
      logins: auth.shiftAttempts(after, unjumped, jump.jumpMs, jump.at),
    };
  });
  return run.immediate();
}

/** The rolling hours' stamps in kv: the portal's last count, the last login, foreign logins. */
function carryKvStamps(kv: KeyValueStore, carry: (at: number) => number, now: number) {
  kv.update('api.server_rate', (h) => ({ ...h, at: carry(h.at) }), now);
  kv.update('api.relogin', (r) => ({ ...r, lastLoginAt: carry(r.lastLoginAt) }), now);
  kv.update('api.foreign_logins', (list) => list.map((e) => ({ ...e, at: carry(e.at) })), now);
}
