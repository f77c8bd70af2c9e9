import { type Notification, verdictNotification } from '../domain/notification.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { enqueueNotification } from '../state/notify/notifyOutbox.ts';

/** The status verdict as `status` words it, and its reasons. */
export interface VerdictNow {
  readonly verdict: string;
  readonly reasons: readonly string[];
}

const NEEDS_A_PERSON = 'needs a person';

/**
 * Pure: the notification when the verdict turned to "needs a person" or away from it since the
 * last one told (`toldNeedsPerson`; undefined: never told, taken as "not needed").
 */
export function verdictChange(
  toldNeedsPerson: boolean | undefined,
  now: VerdictNow,
  at: number,
): Notification | undefined {
  const needs = now.verdict === NEEDS_A_PERSON;
  if (needs === (toldNeedsPerson ?? false)) return undefined;
  return verdictNotification(needs, now.verdict, now.reasons, at);
}

/**
 * Compares the verdict now with the last one told (kv `notify.verdict`) and, when it turned,
 * writes the notification and the new verdict in one transaction. Returns whether it turned.
 */
export function watchVerdict(db: StateDb, read: () => VerdictNow, at: number): boolean {
  const current = read();
  const kv = new KeyValueStore(db);
  return db.transaction(() => {
    const told = kv.get('notify.verdict')?.needsPerson;
    const n = verdictChange(told, current, at);
    if (n === undefined) return false;
    enqueueNotification(db, n);
    kv.set('notify.verdict', { needsPerson: n.details.needsPerson === true, at }, at);
    return true;
  })();
}
