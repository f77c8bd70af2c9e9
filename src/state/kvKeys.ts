import { z } from 'zod';
import type { StockKind } from '../domain/stock.ts';

/**
 * Every key of the kv table and the shape of its value: the one list that every reader and
 * writer goes through (KeyValueStore refuses other keys at compile time and checks values when
 * it reads them). A value that does not have its key's shape (written by another version, or by
 * hand) reads as absent, and the next write replaces it.
 */

const epochMs = z.number();

const heartbeat = z.object({ at: epochMs, pid: z.number(), startedAt: epochMs });

/** Stored when the portal refused the credentials: a salted hash, never the password. */
const loginBlock = z.object({
  salt: z.string(),
  hash: z.string(),
  at: epochMs,
  status: z.number(),
  account: z.string(),
});

/** What the portal last said about its rate window (x-ratelimit-remaining / -limit). */
const serverHint = z.object({
  remaining: z.number(),
  limit: z.number().optional(),
  at: epochMs,
  /** How many answers in a row said 0 remaining (drives the probe back-off). */
  zeroStreak: z.number(),
});

/**
 * Logins since the last good call, and the last login's time: spaces re-logins out while the
 * portal refuses fresh tokens, across restarts and processes (see api/auth/relogin.ts).
 */
const relogin = z.object({ unproven: z.number(), lastLoginAt: epochMs });

/**
 * Token invalidations after good calls (another client logged in with the account) in the last
 * hour: when, and which token (by when it was obtained, never the token), so that two processes
 * meeting the same refusal count it once.
 */
const foreignLogins = z.array(z.object({ at: epochMs, tokenObtainedAt: epochMs }));

/**
 * The bulk-size search: largest batch accepted since the last refusal, smallest refused, and
 * when a refusal was last learnt from (absent in values written before it was kept; the size is
 * probed afresh a day after it).
 */
const learntBatchSize = z.object({
  maxAccepted: z.number().nullable(),
  minRejected: z.number(),
  learntAt: epochMs.optional(),
  /** A size above an accepted one was refused: the search is over (absent: not yet). */
  settled: z.boolean().optional(),
});

/** A key the portal changed behind the daemon's back, as logged in `reconcile.drift`. */
const driftExample = z.object({
  dc: z.string().optional(),
  sku: z.string(),
  /** What the daemon believed the portal held. */
  was: z.number(),
  /** What the portal holds. */
  portal: z.number(),
  /** What the ERP asks for (offered quantity). */
  desired: z.number(),
});

/**
 * A read of a kind's stock (a pass) in progress, saved after every page so a crash, a shutdown or
 * a push that pre-empts it resumes it. Fields after `differences` are absent in values written
 * before idle re-reading (they read as 0 / none).
 */
const reconcileRead = z.object({
  startedAt: epochMs,
  cursor: z.string().nullable(),
  pages: z.number(),
  rowsRead: z.number(),
  differences: z.number(),
  /** Why it started: `schedule` (RECONCILE_CRON), `idle`, `first start`. */
  reason: z.string().optional(),
  /** Keys found drifted so far, and the first few of them. */
  drift: z.number().optional(),
  driftExamples: z.array(driftExample).optional(),
  /** meta.total of the last page, when the portal says how many rows the list holds. */
  total: z.number().optional(),
  /** The other kind's running page count when this pass started (see reconcile.totals). */
  otherPagesAtStart: z.number().optional(),
});

/** The last complete pass of a kind: when each kind was last fully read. */
const reconcilePass = z.object({
  startedAt: epochMs,
  completedAt: epochMs,
  reason: z.string(),
  pages: z.number(),
  rowsRead: z.number(),
  differences: z.number(),
  drift: z.number(),
  unknownSkus: z.number(),
  otherPagesAtStart: z.number(),
});

const lastReconcile = z.object({
  at: epochMs,
  ms: z.number(),
  rowsRead: z.number(),
  differences: z.number(),
  unknownSkus: z.number(),
});

const perKind = z.object({ factory: z.number(), dc: z.number() });

/** Running totals since the state was created: pages read, keys found drifted (for metrics). */
const reconcileTotals = z.object({ pages: perKind, drift: perKind });

const lastIngest = z.object({ at: epochMs, file: z.string(), outcome: z.string() });

const lastPush = z.union([
  z.object({
    at: epochMs,
    outcome: z.literal('ok'),
    calls: z.number(),
    sent: z.number(),
    updated: z.number(),
    failed: z.number(),
  }),
  z.object({ at: epochMs, outcome: z.literal('error'), error: z.string() }),
]);

const lastPoll = z.object({
  at: epochMs,
  count: z.number(),
  new: z.number(),
  file: z.string().nullable(),
});

/**
 * A read of the portal's whole product list in progress (the catalogue pass), saved after every
 * page so that a crash, a shutdown, a push or a run of creations that pre-empts it resumes it.
 */
const catalogueRead = z.object({
  startedAt: epochMs,
  cursor: z.string().nullable(),
  pages: z.number(),
  rows: z.number(),
  /** SKUs the pass found that the daemon did not know (their waiting stock made due). */
  appeared: z.number(),
});

/** The last complete catalogue pass: when the portal's catalogue was last fully read. */
const cataloguePass = catalogueRead.omit({ cursor: true }).extend({ completedAt: epochMs });

/**
 * The last look at the platform's review of the products the daemon created: when, how (the
 * lists filtered by platform status, or each undecided product), its calls, and the pages each
 * filtered list took (what the next look's choice counts on).
 */
const catalogueReview = z.object({
  at: epochMs,
  how: z.enum(['lists', 'each']),
  calls: z.number(),
  listPages: z.object({ declined: z.number(), active: z.number() }).optional(),
});

export const KV_KEYS = {
  /** The daemon's heartbeat, written every 10 s. */
  'daemon.heartbeat': heartbeat,
  'api.login_block': loginBlock,
  'api.server_rate': serverHint,
  'api.relogin': relogin,
  'api.foreign_logins': foreignLogins,
  'api.bulk_max.factory': learntBatchSize,
  'api.bulk_max.dc': learntBatchSize,
  /** The portal's stock of a kind has been read (or pushed whole) once: diffs are trustworthy. */
  'remote.established.factory': z.boolean(),
  'remote.established.dc': z.boolean(),
  /**
   * Epoch ms of the last complete read of a kind's stock from the portal: from then on
   * remote_stock holds every key the portal has of that kind (what a full export needs to zero
   * the keys it omits).
   */
  'remote.read_at.factory': epochMs,
  'remote.read_at.dc': epochMs,
  /**
   * Epoch ms when a first start chose to push every desired row of a kind: the portal's answers
   * to that push are what it holds of those keys, so the idle re-reading lane counts it as the
   * kind's last full read (its next pass is due RECONCILE_MIN_INTERVAL_MS later).
   */
  'remote.pushed_whole.factory': epochMs,
  'remote.pushed_whole.dc': epochMs,
  'reconcile.read.factory': reconcileRead,
  'reconcile.read.dc': reconcileRead,
  'reconcile.pass.factory': reconcilePass,
  'reconcile.pass.dc': reconcilePass,
  'reconcile.totals': reconcileTotals,
  /** The last complete reconciliation. */
  'reconcile.last': lastReconcile,
  'last.ingest': lastIngest,
  'last.push': lastPush,
  /** Epoch ms of the last push that sent something. */
  'last.push_success': epochMs,
  'shipments.last_poll': lastPoll,
  /** Sequence number of the last outbox file. */
  'outbox.seq': z.number(),
  /** Epoch ms when the snapshot source last wrote desired stock. */
  'snapshot.applied_at': epochMs,
  /** Rows each snapshot query returned at the last applied read (guard rails: an emptied table). */
  'snapshot.last_rows': z.object({ factory: z.number(), dc: z.number() }),
  /**
   * The held read an operator released, while the snapshot applies since have all been that
   * read again (its content, as written then): the guard rails let such a read pass. Absent
   * once a read of anything else is applied.
   */
  'snapshot.last_release': z.object({ heldId: z.number(), writtenAt: epochMs }),
  /** The stock rules desired_stock's offered quantities were last worked out with (#17). */
  'stock_rules.fingerprint': z.string(),
  /** Pushes paused by an operator (`pause`): since when, why; absent when not paused. */
  'sync.paused': z.object({ since: epochMs, reason: z.string().nullable() }),
  /**
   * How far the wall clock has gone back in all, as the daemon noticed it (`clock.jump`), in ms:
   * added to the times of inbox files and snapshot reads, so that a source that arrives after a
   * jump back is newer than every one before it.
   */
  'clock.carried_ms': z.number(),
  'catalogue.read': catalogueRead,
  'catalogue.pass': cataloguePass,
  'catalogue.review': catalogueReview,
  /** Whether the status verdict last told to the webhook was "needs a person" (notifications). */
  'notify.verdict': z.object({ needsPerson: z.boolean(), at: epochMs }),
} as const;

export type KvKey = keyof typeof KV_KEYS;
export type KvValue<K extends KvKey> = z.infer<(typeof KV_KEYS)[K]>;

/** Keys that exist once per stock kind. */
export const kvKey = {
  bulkMax: (kind: StockKind) => `api.bulk_max.${kind}` as const,
  established: (kind: StockKind) => `remote.established.${kind}` as const,
  readAt: (kind: StockKind) => `remote.read_at.${kind}` as const,
  pushedWhole: (kind: StockKind) => `remote.pushed_whole.${kind}` as const,
  reconcileRead: (kind: StockKind) => `reconcile.read.${kind}` as const,
  reconcilePass: (kind: StockKind) => `reconcile.pass.${kind}` as const,
};

export type Heartbeat = KvValue<'daemon.heartbeat'>;
export type LoginBlock = KvValue<'api.login_block'>;
export type ServerHint = KvValue<'api.server_rate'>;
export type Relogin = KvValue<'api.relogin'>;
export type LearntBatchSize = KvValue<'api.bulk_max.factory'>;
export type ReconcileRead = KvValue<'reconcile.read.factory'>;
export type ReconcilePass = KvValue<'reconcile.pass.factory'>;
export type ReconcileTotals = KvValue<'reconcile.totals'>;
export type DriftExample = z.infer<typeof driftExample>;
