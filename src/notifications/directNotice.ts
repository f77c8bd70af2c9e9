import type { Clock } from '../domain/clock.ts';
import type { Notification } from '../domain/notification.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import {
  type NotificationBody,
  NotifyOutbox,
  notificationBody,
} from '../state/notify/notifyOutbox.ts';
import { type SendRequest, type SendResult, sendNotification } from './send.ts';

/**
 * A notification that cannot wait for the outbox, because the outbox is in state.db and state.db
 * cannot be written (a full disk): sent at once, one attempt, best effort; recorded in state.db
 * once it can be — counted as delivered, or put in the outbox when the attempt failed (so that it
 * is delivered at least once after all) — together with the verdict it told, so that the verdict
 * watch tells the turn back when it comes.
 */
export interface DirectNotice {
  /** Sends `n` now; nothing while an earlier one is not recorded yet (once per episode). */
  send(n: Notification): Promise<void>;
  /** Records the one sent, if any; false while state.db still cannot take it (or it is being sent). */
  record(): boolean;
  /** Whether one is sent (or being sent) and not recorded yet. */
  pending(): boolean;
}

export interface DirectNoticeDeps {
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  readonly url: string;
  readonly secret: string | undefined;
  readonly timeoutMs: number;
  /** Where log lines say it went: the URL's origin (the path may be a secret). */
  readonly receiver: string;
  readonly signal: AbortSignal;
  readonly send?: (req: SendRequest) => Promise<SendResult>;
}

export function directNotice(deps: DirectNoticeDeps): DirectNotice {
  const send = deps.send ?? sendNotification;
  let sent: { body: NotificationBody; delivered: boolean; at: number } | undefined;
  let sending: Promise<void> | undefined;

  return {
    send(n) {
      if (sending !== undefined || sent !== undefined) return sending ?? Promise.resolve();
      const body = notificationBody(n);
      sending = send({
        url: deps.url,
        body: JSON.stringify(body),
        event: body.event,
        id: body.id,
        secret: deps.secret,
        timeoutMs: deps.timeoutMs,
        signal: deps.signal,
      })
        .then((result) => {
          sent = { body, delivered: result.ok, at: n.at };
          const fields = { notification: body.event, id: body.id, direct: true };
          if (result.ok)
            deps.log.info(
              { event: 'notify.delivered', ...fields, status: result.status, attempts: 1 },
              `${body.event} notification delivered to ${deps.receiver} at once (state.db cannot be written)`,
            );
          else
            deps.log.warn(
              { event: 'notify.failed', ...fields, attempts: 1, error: result.error },
              `${body.event} notification not delivered to ${deps.receiver} (${result.error}); it goes into the outbox once state.db can be written`,
            );
        })
        .finally(() => {
          sending = undefined;
        });
      return sending;
    },
    record() {
      if (sending !== undefined) return false;
      if (sent === undefined) return true;
      const { body, delivered, at } = sent;
      try {
        deps.db.transaction(() => {
          new NotifyOutbox(deps.db).sentDirectly(body, delivered, at, deps.clock.now());
          new KeyValueStore(deps.db).set('notify.verdict', { needsPerson: true, at }, at);
        })();
      } catch {
        return false; // still cannot be written: tried again at the next pass
      }
      sent = undefined;
      return true;
    },
    pending: () => sending !== undefined || sent !== undefined,
  };
}
