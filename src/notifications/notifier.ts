import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import {
  disableNotifications,
  enableNotifications,
  NotifyOutbox,
  type OutboxRow,
} from '../state/notify/notifyOutbox.ts';
import { afterFailure, type NotifyRetry } from './retryPolicy.ts';
import { type SendRequest, type SendResult, sendNotification } from './send.ts';

export interface NotifierDeps {
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  /** NOTIFY_WEBHOOK_URL. */
  readonly url: string;
  /** The signing secret (NOTIFY_WEBHOOK_SECRET_FILE's content), if any. */
  readonly secret?: string | undefined;
  /** NOTIFY_TIMEOUT_MS. */
  readonly timeoutMs: number;
  readonly retry: NotifyRetry;
  /** How often the outbox is looked at, in real milliseconds (1 s by default). */
  readonly everyMs?: number;
  /**
   * Work done before each look (the verdict watch): `asked` is true for a pass asked for with
   * runNow, false for the timer's. A throw is logged (notify.watch_failed) and the pass goes on.
   */
  readonly beforePass?: (asked: boolean) => void;
  /** The sender (tests may count calls); a POST with fetch by default. */
  readonly send?: (req: SendRequest) => Promise<SendResult>;
}

export interface Notifier {
  /**
   * Looks at the outbox now and sends what is due; resolves once every kind under way is done
   * (what was due is delivered, or waits its back-off).
   */
  runNow(): Promise<void>;
  /** No new attempt; the one in flight is aborted; resolves once the loop has ended. */
  stop(): Promise<void>;
}

/** The look at the outbox, when nothing asks sooner. */
export const NOTIFY_EVERY_MS = 1000;

/**
 * The delivery loop: on a timer of its own (never in the path of stock or shipment work, which
 * only write outbox rows), it takes the oldest notification of each event kind that is due and
 * POSTs it; kinds go side by side, a kind's notifications one after the other, so that each kind
 * arrives in order. A delivered row is deleted; a failed one waits its back-off (retryPolicy.ts)
 * and holds back the later ones of its kind; after 24 h of failures it is dropped with a
 * `notify.dropped` line, and the later ones of its kind that are 24 h old too go with it. A row is claimed before it is sent (its next try pushed past the
 * timeout), so that two daemons on one state.db do not both send it.
 */
export function startNotifier(deps: NotifierDeps): Notifier {
  const { db, log, clock } = deps;
  const outbox = new NotifyOutbox(db);
  const send = deps.send ?? sendNotification;
  const stopping = new AbortController();
  const receiver = originOf(deps.url);
  enableNotifications(db);

  const deliverKind = async (first: OutboxRow): Promise<void> => {
    let row: OutboxRow | undefined = first;
    while (row !== undefined && row.nextAt <= clock.now() && !stopping.signal.aborted) {
      if (!outbox.claim(row, clock.now() + deps.timeoutMs + 5000)) return;
      const started = clock.now();
      const result = await send({
        url: deps.url,
        body: row.body,
        event: row.event,
        id: row.uuid,
        secret: deps.secret,
        timeoutMs: deps.timeoutMs,
        signal: stopping.signal,
      });
      if (result.ok) {
        outbox.delivered(row);
        log.info(
          {
            event: 'notify.delivered',
            notification: row.event,
            id: row.uuid,
            status: result.status,
            attempts: row.attempts + 1,
            ms: clock.now() - started,
          },
          `${row.event} notification delivered to ${receiver}`,
        );
      } else if (stopping.signal.aborted) {
        outbox.release(row);
        return;
      } else {
        const next = afterFailure(row, clock.now(), deps.retry);
        const fields = {
          notification: row.event,
          id: row.uuid,
          attempts: row.attempts + 1,
          error: result.error,
          ...(result.status === undefined ? {} : { status: result.status }),
        };
        if (next.drop) {
          outbox.dropped(row);
          // Those of its kind that waited behind it for 24 h as well go with it, untried.
          const expired = outbox.dropExpired(row.event, clock.now() - deps.retry.giveUpAfterMs);
          log.error(
            {
              event: 'notify.dropped',
              ...fields,
              createdAt: new Date(row.createdAt).toISOString(),
              alsoDropped: expired,
            },
            `${row.event} notification dropped: ${receiver} did not take it for 24 h (${result.error})` +
              (expired > 0 ? `; ${expired} more of its kind, as old, dropped with it` : ''),
          );
        } else {
          outbox.attemptFailed(row, next.nextAt, result.error);
          log.warn(
            { event: 'notify.failed', ...fields, retryAt: new Date(next.nextAt).toISOString() },
            `${row.event} notification not delivered to ${receiver} (${result.error}); tried again at ${new Date(next.nextAt).toISOString()}`,
          );
          return;
        }
      }
      row = outbox.head(row.event);
    }
  };

  // The kinds being sent now: a kind is sent by one chain at a time, and a kind whose POST hangs
  // (up to NOTIFY_TIMEOUT_MS) holds back neither the other kinds nor the timer.
  const inFlight = new Map<string, Promise<void>>();
  const pass = (asked: boolean): Promise<void> => {
    if (stopping.signal.aborted) return Promise.resolve();
    try {
      deps.beforePass?.(asked);
    } catch (err) {
      log.warn({ event: 'notify.watch_failed', err }, 'could not read the status verdict');
    }
    const now = clock.now();
    for (const head of outbox.heads()) {
      if (head.nextAt > now || inFlight.has(head.event)) continue;
      const chain = deliverKind(head)
        .catch((err) =>
          log.warn(
            { event: 'notify.error', notification: head.event, err },
            'notification delivery failed',
          ),
        )
        .finally(() => inFlight.delete(head.event));
      inFlight.set(head.event, chain);
    }
    // Resolves once every kind under way (started now or before) is done.
    return Promise.all(inFlight.values()).then(() => {});
  };
  const safePass = (asked: boolean) =>
    pass(asked).catch((err) =>
      log.warn({ event: 'notify.error', err }, 'notification pass failed'),
    );

  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (stopping.signal.aborted) return;
    timer = setTimeout(() => {
      void safePass(false);
      schedule();
    }, deps.everyMs ?? NOTIFY_EVERY_MS);
    timer.unref();
  };
  schedule();

  return {
    runNow: () => safePass(true),
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      disableNotifications(db);
      await Promise.all(inFlight.values());
    },
  };
}

/** Where notifications go, for log lines: scheme, host and port only (the path may be a secret). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the webhook';
  }
}
