import { Counter, Gauge, type Registry } from 'prom-client';
import type { StateDb } from '../state/db.ts';
import { NotifyOutbox, type NotifyOutcome } from '../state/notify/notifyOutbox.ts';

const P = 'supplier_sync_';

/**
 * The notifications' figures (NOTIFY_WEBHOOK_URL), read from state.db with the other metrics:
 * what waits in the outbox, and per event kind since state.db was created, how many were
 * delivered, how many attempts failed, how many were dropped after 24 h.
 */
export function notifyMetrics(registry: Registry): (db: StateDb, now: number) => void {
  const queued = new Gauge({
    name: `${P}notifications_queued`,
    help: 'Notifications waiting in the outbox to be delivered to NOTIFY_WEBHOOK_URL.',
    registers: [registry],
  });
  const oldest = new Gauge({
    name: `${P}notifications_oldest_age_seconds`,
    help: 'Age of the oldest notification waiting in the outbox; absent when none waits.',
    registers: [registry],
  });
  const counter = (name: string, help: string) =>
    new Counter({ name: P + name, help, labelNames: ['event'], registers: [registry] });
  const counters: Record<NotifyOutcome, Counter<'event'>> = {
    delivered: counter(
      'notifications_delivered_total',
      'Notifications the webhook took (a 2xx answer), per event kind.',
    ),
    failed_attempts: counter(
      'notification_attempts_failed_total',
      'Notification POSTs that failed (another status, no answer, no connection), per event kind; each is tried again with back-off.',
    ),
    dropped: counter(
      'notifications_dropped_total',
      'Notifications dropped after 24 h of failed attempts (notify.dropped), per event kind.',
    ),
  };
  return (db, now) => {
    const outbox = new NotifyOutbox(db);
    const depth = outbox.depth();
    queued.set(depth.queued);
    if (depth.oldestAt === null) oldest.remove();
    else oldest.set(Math.max(0, now - depth.oldestAt) / 1000);
    for (const c of Object.values(counters)) c.reset();
    for (const t of outbox.totals()) counters[t.outcome].inc({ event: t.event }, t.count);
  };
}
