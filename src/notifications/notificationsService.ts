import type { Config } from '../config/index.ts';
import type { WatchLog } from '../config/watchedFile.ts';
import type { Clock } from '../domain/clock.ts';
import { type Notification, settingsFileNotification } from '../domain/notification.ts';
import type { Logger } from '../log/logger.ts';
import { registerSecret } from '../log/redact.ts';
import type { StateDb } from '../state/db.ts';
import { enqueueNotification, NotifyOutbox } from '../state/notify/notifyOutbox.ts';
import { type DirectNotice, directNotice } from './directNotice.ts';
import { type Notifier, originOf, startNotifier } from './notifier.ts';
import { NOTIFY_GIVE_UP_MS } from './retryPolicy.ts';
import { readWebhookSecret } from './signature.ts';
import { type VerdictNow, watchVerdict } from './verdictWatch.ts';

/** How often, at most, the delivery loop reads the status verdict on its own. */
const VERDICT_EVERY_MS = 10_000;

/** The settings notifications read (never the whole configuration). */
export type NotificationSettings = Pick<
  Config,
  | 'notifyWebhookUrl'
  | 'notifyWebhookSecretFile'
  | 'notifyTimeoutMs'
  | 'notifyRetryBaseMs'
  | 'notifyRetryMaxMs'
>;

/** What the delivery loop needs once state.db is open. */
export interface NotificationEdges {
  readonly db: StateDb;
  readonly clock: Clock;
  /** The status verdict now (a turn to NEEDS A PERSON, or back, is notified). */
  readonly readVerdict: () => VerdictNow;
}

/** The daemon's notifications (NOTIFY_WEBHOOK_URL): nothing at all when it is unset. */
export interface Notifications {
  /**
   * The log the watched settings files (profiles, stock rules) report to: their `.invalid`
   * warnings also become notifications once `start` has run.
   */
  readonly watchLog: WatchLog;
  /** Starts the delivery loop on state.db (before any work that may notify). */
  start(edges: NotificationEdges): void;
  /** One delivery pass now, the verdict read first (tests and tools that must not wait). */
  runNow(): Promise<void>;
  /**
   * Sends a notification at once, outside the outbox, one attempt (state.db cannot be written: a
   * full disk), and records it in state.db once it can be (directNotice.ts). Once per episode:
   * nothing is sent while the last one is not recorded. Resolves once the attempt is over.
   */
  tellAtOnce(n: Notification): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Reads the signing secret (a bad file stops the start, exit 78) and registers the secret and
 * the URL with the log scrubber; the loop starts with `start`.
 */
export function createNotifications(config: NotificationSettings, log: Logger): Notifications {
  const url = config.notifyWebhookUrl;
  if (url === undefined) {
    return {
      watchLog: log,
      // Off: what an earlier run left undelivered is not kept (status would show it forever).
      start({ db }) {
        const discarded = new NotifyOutbox(db).discardAll();
        if (discarded > 0)
          log.warn(
            { event: 'notify.discarded', count: discarded },
            `${discarded} undelivered notification(s) discarded: NOTIFY_WEBHOOK_URL is not set`,
          );
      },
      runNow: async () => {},
      tellAtOnce: async () => {},
      stop: async () => {},
    };
  }
  const secret = config.notifyWebhookSecretFile
    ? readWebhookSecret(config.notifyWebhookSecretFile)
    : undefined;
  if (secret !== undefined) registerSecret(secret);
  registerSecret(url);
  let attached: { db: StateDb; clock: Clock } | undefined;
  let notifier: Notifier | undefined;
  let direct: DirectNotice | undefined;
  const stopping = new AbortController();

  const watchLog: WatchLog = {
    info: (obj, msg) => log.info(obj, msg),
    warn(obj, msg) {
      log.warn(obj, msg);
      const o = obj as { event?: unknown; file?: unknown; problem?: unknown };
      if (attached === undefined || typeof o.file !== 'string') return;
      const name =
        o.event === 'rules.invalid'
          ? 'rules'
          : o.event === 'profiles.invalid'
            ? 'profiles'
            : undefined;
      if (name === undefined) return;
      try {
        enqueueNotification(
          attached.db,
          settingsFileNotification(
            name,
            o.file,
            String(o.problem ?? 'invalid'),
            attached.clock.now(),
          ),
        );
      } catch (err) {
        log.warn({ event: 'notify.error', err }, 'could not store a notification');
      }
    },
  };

  return {
    watchLog,
    start({ db, clock, readVerdict }) {
      attached = { db, clock };
      const sending = { db, log, clock, url, secret, timeoutMs: config.notifyTimeoutMs };
      const told = directNotice({ ...sending, receiver: originOf(url), signal: stopping.signal });
      direct = told;
      let lastVerdictRead = 0;
      notifier = startNotifier({
        ...sending,
        retry: {
          baseMs: config.notifyRetryBaseMs,
          maxMs: config.notifyRetryMaxMs,
          giveUpAfterMs: NOTIFY_GIVE_UP_MS,
        },
        beforePass(asked) {
          if (!asked && Date.now() - lastVerdictRead < VERDICT_EVERY_MS) return;
          lastVerdictRead = Date.now();
          // A verdict told at once is recorded first; while it cannot be, the watch waits too.
          if (!told.record()) return;
          watchVerdict(db, readVerdict, clock.now());
        },
      });
    },
    runNow: async () => notifier?.runNow(),
    tellAtOnce: async (n) => direct?.send(n),
    async stop() {
      stopping.abort();
      await notifier?.stop();
    },
  };
}
