import { randomUUID } from 'node:crypto';
import type { Notification } from '../../domain/notification.ts';
import { scrub, scrubString } from '../../log/redact.ts';
import { perConnection, type StateDb } from '../db.ts';

/**
 * The notification outbox (migration 20): what is still to be delivered to NOTIFY_WEBHOOK_URL.
 * A fact's code adds its notification with `enqueueNotification`, inside the fact's own
 * transaction where it has one, so that the fact and its notification are stored together or
 * not at all. The delivery loop (notifications/) reads the oldest row of each event kind, sends
 * it, and deletes it once delivered (or dropped after 24 h of failures), counting each outcome.
 */
export interface OutboxRow {
  readonly id: number;
  readonly uuid: string;
  readonly event: string;
  /** The JSON body sent, fixed when the row was written. */
  readonly body: string;
  readonly createdAt: number;
  /** Failed attempts so far. */
  readonly attempts: number;
  /** Epoch ms before which the row is not tried (again). */
  readonly nextAt: number;
  readonly lastError: string | null;
}

export type NotifyOutcome = 'delivered' | 'failed_attempts' | 'dropped';

/** The body a receiver gets: the notification with its delivery id and the time in ISO 8601. */
export interface NotificationBody {
  /** The same across retries of one notification: a receiver drops repeats by it. */
  readonly id: string;
  readonly event: string;
  readonly at: string;
  readonly text: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/** Connections on which a delivery loop runs: only there are notifications written. */
const enabled = new WeakSet<StateDb>();

/**
 * Notifications written on `db` from now on (the daemon, with NOTIFY_WEBHOOK_URL set, on its own
 * connection); without it `enqueueNotification` does nothing, so that an outbox nobody delivers
 * never grows.
 */
export function enableNotifications(db: StateDb): void {
  enabled.add(db);
}

export function disableNotifications(db: StateDb): void {
  enabled.delete(db);
}

interface Row {
  id: number;
  uuid: string;
  event: string;
  body: string;
  created_at: number;
  attempts: number;
  next_at: number;
  last_error: string | null;
}

const toRow = (r: Row): OutboxRow => ({
  id: r.id,
  uuid: r.uuid,
  event: r.event,
  body: r.body,
  createdAt: r.created_at,
  attempts: r.attempts,
  nextAt: r.next_at,
  lastError: r.last_error,
});

const statements = perConnection((db) => ({
  insert: db.prepare<[string, string, string, number, number]>(
    `INSERT INTO notify_outbox (uuid, event, body, created_at, next_at) VALUES (?, ?, ?, ?, ?)`,
  ),
  heads: db.prepare<[], Row>(
    `SELECT * FROM notify_outbox
      WHERE id IN (SELECT MIN(id) FROM notify_outbox GROUP BY event) ORDER BY id`,
  ),
  head: db.prepare<[string], Row>(
    'SELECT * FROM notify_outbox WHERE event = ? ORDER BY id LIMIT 1',
  ),
  remove: db.prepare<[number]>('DELETE FROM notify_outbox WHERE id = ?'),
  claim: db.prepare<[number, number, number]>(
    'UPDATE notify_outbox SET next_at = ? WHERE id = ? AND next_at = ?',
  ),
  setNext: db.prepare<[number, number]>('UPDATE notify_outbox SET next_at = ? WHERE id = ?'),
  expire: db.prepare<[string, number]>(
    'DELETE FROM notify_outbox WHERE event = ? AND created_at <= ?',
  ),
  countMany: db.prepare<[string, NotifyOutcome, number, number]>(
    `INSERT INTO notify_totals (event, outcome, count) VALUES (?, ?, ?)
     ON CONFLICT (event, outcome) DO UPDATE SET count = count + ?`,
  ),
  failed: db.prepare<[number, string, number]>(
    'UPDATE notify_outbox SET attempts = attempts + 1, next_at = ?, last_error = ? WHERE id = ?',
  ),
  count: db.prepare<[string, NotifyOutcome]>(
    `INSERT INTO notify_totals (event, outcome, count) VALUES (?, ?, 1)
     ON CONFLICT (event, outcome) DO UPDATE SET count = count + 1`,
  ),
  depth: db.prepare<[], { queued: number; oldest: number | null }>(
    'SELECT COUNT(*) AS queued, MIN(created_at) AS oldest FROM notify_outbox',
  ),
  totals: db.prepare<[], { event: string; outcome: NotifyOutcome; count: number }>(
    'SELECT event, outcome, count FROM notify_totals ORDER BY event, outcome',
  ),
}));

/**
 * Adds a notification to the outbox, due at once; inside the caller's transaction when one is
 * open. A no-op (undefined) unless notifications are enabled on `db`; else the delivery id.
 * Nothing secret goes out: the details are scrubbed as a log line is.
 */
export function enqueueNotification(db: StateDb, n: Notification): string | undefined {
  if (!enabled.has(db)) return undefined;
  const body = notificationBody(n);
  statements(db).insert.run(body.id, n.event, JSON.stringify(body), n.at, n.at);
  return body.id;
}

/** The body a notification is sent as, with a new delivery id; scrubbed as a log line is. */
export function notificationBody(n: Notification): NotificationBody {
  return {
    id: randomUUID(),
    event: n.event,
    at: new Date(n.at).toISOString(),
    text: scrubString(n.text),
    details: scrub(n.details) as Record<string, unknown>,
  };
}

/** What the outbox holds: how many wait, since when. */
export interface OutboxDepth {
  readonly queued: number;
  /** Epoch ms of the oldest waiting notification; null when none wait. */
  readonly oldestAt: number | null;
}

export class NotifyOutbox {
  readonly #db: StateDb;
  readonly #s;

  constructor(db: StateDb) {
    this.#db = db;
    this.#s = statements(db);
  }

  /** The oldest row of each event kind: the only one of its kind that may be sent now. */
  heads(): OutboxRow[] {
    return this.#s.heads.all().map(toRow);
  }

  /** The oldest row of one event kind. */
  head(event: string): OutboxRow | undefined {
    const r = this.#s.head.get(event);
    return r && toRow(r);
  }

  /**
   * Takes the row for one attempt: its next try moves to `until` (past the attempt's timeout),
   * so that another process on this state.db leaves it alone meanwhile, and a crash mid-attempt
   * only delays it. False when someone else took it first.
   */
  claim(row: OutboxRow, until: number): boolean {
    return this.#s.claim.run(until, row.id, row.nextAt).changes > 0;
  }

  /** Gives a claimed row back untried (the daemon stops mid-attempt). */
  release(row: OutboxRow): void {
    this.#s.setNext.run(row.nextAt, row.id);
  }

  /** The receiver took it: gone from the outbox, counted. */
  delivered(row: OutboxRow): void {
    this.#db.transaction(() => {
      this.#s.remove.run(row.id);
      this.#s.count.run(row.event, 'delivered');
    })();
  }

  /** An attempt failed: tried again at `nextAt`, counted. */
  attemptFailed(row: OutboxRow, nextAt: number, error: string): void {
    this.#db.transaction(() => {
      this.#s.failed.run(nextAt, error, row.id);
      this.#s.count.run(row.event, 'failed_attempts');
    })();
  }

  /** The last attempt failed and its time is up: gone from the outbox, counted. */
  dropped(row: OutboxRow): void {
    this.#db.transaction(() => {
      this.#s.remove.run(row.id);
      this.#s.count.run(row.event, 'failed_attempts');
      this.#s.count.run(row.event, 'dropped');
    })();
  }

  /**
   * Drops, untried, the notifications of a kind written at or before `createdBefore` (their 24 h
   * spent waiting behind one the receiver kept refusing); returns how many, counted as dropped.
   */
  dropExpired(event: string, createdBefore: number): number {
    return this.#db.transaction(() => {
      const n = this.#s.expire.run(event, createdBefore).changes;
      if (n > 0) this.#s.countMany.run(event, 'dropped', n, n);
      return n;
    })();
  }

  /**
   * A notification sent without the outbox (state.db could not be written: a full disk), recorded
   * once it can be: counted as delivered, or, when that one attempt failed, put in the outbox
   * (due at once, under the same id) to be delivered as any other.
   */
  sentDirectly(body: NotificationBody, delivered: boolean, createdAt: number, now: number): void {
    this.#db.transaction(() => {
      if (delivered) this.#s.count.run(body.event, 'delivered');
      else {
        this.#s.insert.run(body.id, body.event, JSON.stringify(body), createdAt, now);
        this.#s.count.run(body.event, 'failed_attempts');
      }
    })();
  }

  /** Empties the outbox (notifications turned off); returns how many were discarded. */
  discardAll(): number {
    return this.#db.prepare('DELETE FROM notify_outbox').run().changes;
  }

  depth(): OutboxDepth {
    const r = this.#s.depth.get()!;
    return { queued: r.queued, oldestAt: r.oldest };
  }

  /** Since state.db was created: per event kind, how many were delivered, failed, dropped. */
  totals(): Array<{ event: string; outcome: NotifyOutcome; count: number }> {
    return this.#s.totals.all();
  }
}
