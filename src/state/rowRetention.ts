import type { StateDb } from './db.ts';
import { appliedCondition } from './inbox/inboxLedger.ts';
import { KeyValueStore } from './kv.ts';

/** Rows removed by one retention run, per table. */
export interface PrunedRows {
  readonly inboxFiles: number;
  /** Shipments confirmed, or gone from the ready-to-ship list unconfirmed, before the cutoff. */
  readonly shipments: number;
  readonly confirmations: number;
  /** Counted failed attempts at files (inbox_attempts) whose last attempt is older. */
  readonly inboxAttempts: number;
  /** The last push of a key (stock_pushes), when it is older and the key owes nothing. */
  readonly stockPushes: number;
  /** Held files and snapshot reads an operator (or a newer read) decided before the cutoff. */
  readonly held: number;
  /** Operator requests answered, cancelled or asked before the cutoff. */
  readonly operatorRequests: number;
  /** Calls (api_calls) and logins (login_attempts) beyond the two hours the budget reads. */
  readonly apiCalls: number;
  readonly loginAttempts: number;
  /** Answered product requests (created, existing, failed); the catalogue itself is kept. */
  readonly productRequests: number;
  /** Decisions of the platform's review noticed, and declined-products files in outbox/ since. */
  readonly productDecisions: number;
}

/** Nothing pruned (RETENTION_DAYS=0). */
export const NO_ROWS_PRUNED: PrunedRows = {
  inboxFiles: 0,
  shipments: 0,
  confirmations: 0,
  inboxAttempts: 0,
  stockPushes: 0,
  held: 0,
  operatorRequests: 0,
  apiCalls: 0,
  loginAttempts: 0,
  productRequests: 0,
  productDecisions: 0,
};

/** How long calls and logins are kept: the rolling hour the budget and the login cap count, twice. */
const CALLS_KEPT_MS = 2 * 3_600_000;

/** A confirmation still open: neither confirmed nor replaced by a correction. */
const OPEN = (alias: string) => `${alias}.status NOT IN ('confirmed', 'replaced')`;

/** A product request not answered yet: its file's report is still to be completed. */
const WAITING = (alias: string) => `${alias}.state IN ('queued', 'sending')`;

/** Rows deleted per transaction: the write lock is held for short moments only. */
const BATCH = 500;

/**
 * Finished ledger rows older than the cutoff that nothing needs any more (a held file released
 * is finished too: its copy was read again under a row of its own). Kept, however old:
 * - rows not finished ('committed': a move still to do);
 * - the newest applied file of each kind: a copy of it arriving again is a duplicate and costs
 *   nothing (see duplicateOf in inventory/ingest/route.ts);
 * - a file whose confirmations are not all confirmed (pending, failed, conflict): its report is
 *   completed with the portal's answers, and `failures` names its file and line;
 * - a file that is still the source of some key's desired quantity (desired_stock.source): what
 *   a key's value came from stays known (temp.retention_sources, filled per run).
 */
const PRUNE_LEDGER = `
DELETE FROM inbox_files WHERE id IN (
  SELECT f.id FROM inbox_files f
   WHERE f.status IN ('processed', 'failed', 'duplicate', 'released') AND f.finished_at < @cutoff
     AND f.id IS NOT (SELECT n.id FROM inbox_files n WHERE n.kind = f.kind AND ${appliedCondition('n')}
                       ORDER BY n.id DESC LIMIT 1)
     AND NOT EXISTS (SELECT 1 FROM shipment_confirmations c WHERE c.file_id = f.id AND ${OPEN('c')})
     AND NOT EXISTS (SELECT 1 FROM product_requests p WHERE p.file_id = f.id AND ${WAITING('p')})
     AND f.id NOT IN (SELECT id FROM temp.retention_sources)
   LIMIT ${BATCH})`;

/**
 * Shipments confirmed before the cutoff whose confirmations are all confirmed. An order still on
 * the ready-to-ship list and unconfirmed is never pruned: its row is what keeps it from being
 * handed to the ERP twice.
 */
const PRUNE_SHIPMENTS = `
DELETE FROM shipments WHERE order_number IN (
  SELECT s.order_number FROM shipments s
   WHERE s.confirmed_at < @cutoff
     AND NOT EXISTS (SELECT 1 FROM shipment_confirmations c
                      WHERE c.order_number = s.order_number AND ${OPEN('c')})
   LIMIT ${BATCH})`;

/**
 * Shipments that left the ready-to-ship list unconfirmed before the cutoff (cancelled, or
 * shipped another way), with no confirmation of theirs still open and no hand-over of theirs
 * still to be put in outbox/. An order that came back on the list after that long would be
 * handed to the ERP again.
 */
const PRUNE_LEFT_SHIPMENTS = `
DELETE FROM shipments WHERE order_number IN (
  SELECT s.order_number FROM shipments s
   WHERE s.confirmed_at IS NULL AND s.left_list_at < @cutoff
     AND NOT EXISTS (SELECT 1 FROM shipment_confirmations c
                      WHERE c.order_number = s.order_number AND ${OPEN('c')})
     AND (s.export_file IS NULL OR s.export_file NOT IN (SELECT name FROM outbox_handovers))
   LIMIT ${BATCH})`;

/**
 * Confirmations the portal confirmed before the cutoff, and those a correction replaced before
 * it, unless another confirmation of the same order is still open (pending, failed, or a
 * conflict that names this one).
 */
const PRUNE_CONFIRMATIONS = `
DELETE FROM shipment_confirmations WHERE id IN (
  SELECT c.id FROM shipment_confirmations c
   WHERE ((c.status = 'confirmed' AND c.confirmed_at < @cutoff)
          OR (c.status = 'replaced' AND c.created_at < @cutoff))
     AND NOT EXISTS (SELECT 1 FROM shipment_confirmations o
                      WHERE o.order_number = c.order_number AND ${OPEN('o')})
   LIMIT ${BATCH})`;

/**
 * Failed attempts whose last one is older than the cutoff. A row goes when its file is handled;
 * one of a file removed from inbox/ by hand, or renamed, stays behind. A file still failing in
 * inbox/ after that long starts its count again (a few more tries before failed/).
 */
const PRUNE_ATTEMPTS = `
DELETE FROM inbox_attempts WHERE identity IN (
  SELECT identity FROM inbox_attempts WHERE last_at < @cutoff LIMIT ${BATCH})`;

/**
 * Held entries decided before the cutoff (released, rejected, superseded), but: the snapshot read
 * whose release is the last one (a read of the same content is known by it), and a released file
 * whose put-back copy is not read yet (its row is still the newest of its content: the copy
 * passes the guard rails by it). Their kept-aside rows go with them (a decision drops them).
 */
const HELD_DECIDED = `
SELECT h.id FROM held h
 WHERE h.status <> 'held' AND h.decided_at < @cutoff AND h.id <> @lastRelease
   AND NOT (h.source = 'file' AND h.status = 'released' AND h.file_id IS NOT NULL
            AND h.file_id = (SELECT MAX(f.id) FROM inbox_files f WHERE f.content_hash = h.content_hash))
 LIMIT ${BATCH}`;

/** Operator requests answered, cancelled, or (never answered) asked before the cutoff. */
const PRUNE_REQUESTS = `
DELETE FROM operator_requests WHERE id IN (
  SELECT id FROM operator_requests WHERE coalesce(done_at, cancelled_at, asked_at) < @cutoff
   LIMIT ${BATCH})`;

/** Calls and logins the budget and the login cap no longer count (they prune as they go too). */
const PRUNE_CALLS = `
DELETE FROM api_calls WHERE id IN (SELECT id FROM api_calls WHERE at <= @cutoff LIMIT ${BATCH})`;
const PRUNE_LOGINS = `
DELETE FROM login_attempts WHERE id IN (
  SELECT id FROM login_attempts WHERE at <= @cutoff LIMIT ${BATCH})`;

/**
 * The next keys (after `after`, in key order) whose last push is older than the cutoff and that
 * owe nothing: no push pending, no failure stored (the push that failed explains it).
 */
const OLD_PUSHES = `
SELECT p.kind, p.dc, p.sku FROM stock_pushes p
 WHERE (p.kind, p.dc, p.sku) > (@kind, @dc, @sku) AND p.at < @cutoff
   AND NOT EXISTS (SELECT 1 FROM pending_stock q WHERE q.kind = p.kind AND q.dc = p.dc AND q.sku = p.sku)
   AND NOT EXISTS (SELECT 1 FROM stock_failures f WHERE f.kind = p.kind AND f.dc = p.dc AND f.sku = p.sku)
 ORDER BY p.kind, p.dc, p.sku LIMIT ${BATCH}`;

/**
 * Product requests answered before the cutoff (created, existing, failed). What the portal has is
 * kept in `catalogue`, which is never pruned: it is what keeps a product from being sent twice.
 */
const PRUNE_PRODUCT_REQUESTS = `
DELETE FROM product_requests WHERE id IN (
  SELECT id FROM product_requests
   WHERE state IN ('created', 'existing', 'failed') AND done_at < @cutoff LIMIT ${BATCH})`;

/**
 * Decisions of the platform's review noticed before the cutoff (a product declined longer ago
 * than that is in `catalogue` still, with its reason), and declined-products hand-overs whose
 * file was put in outbox/ before it. One never written stays: its file is still owed.
 */
const PRUNE_DECISIONS = `
DELETE FROM product_decisions WHERE id IN (
  SELECT id FROM product_decisions WHERE noticed_at < @cutoff
     AND (outbox_file IS NULL OR outbox_file NOT IN (SELECT name FROM declined_files WHERE written_at IS NULL))
   LIMIT ${BATCH})`;
const PRUNE_DECLINED_FILES = `
DELETE FROM declined_files WHERE name IN (
  SELECT name FROM declined_files WHERE written_at < @cutoff LIMIT ${BATCH})`;

/** Runs a delete batch after batch (each its own transaction) until one deletes nothing. */
function inBatches(db: StateDb, sql: string, params: Record<string, number>): number {
  const stmt = db.prepare<[Record<string, number>]>(sql);
  const once = db.transaction(() => stmt.run(params).changes);
  let total = 0;
  for (let n = once.immediate(); n > 0; n = once.immediate()) total += n;
  return total;
}

/**
 * Deletes the finished rows of every table that grows with time, older than `cutoff` (epoch ms),
 * that nothing needs (see the statements above and docs/operations.md, "Retention"), a batch per
 * transaction so that other writers wait moments only; calls and logins go once two hours old
 * (`now`). Safe to run at any time and twice.
 */
export function pruneFinishedRows(db: StateDb, cutoff: number, now: number): PrunedRows {
  // The ledger ids some key's desired quantity still comes from, read once per run: a key's
  // source only ever moves to a newer file, so an old row unneeded now stays unneeded.
  db.exec(`CREATE TEMP TABLE IF NOT EXISTS retention_sources (id INTEGER PRIMARY KEY);
           DELETE FROM temp.retention_sources;`);
  db.exec(`INSERT OR IGNORE INTO temp.retention_sources (id)
           SELECT DISTINCT CAST(substr(source, 6) AS INTEGER) FROM desired_stock WHERE source LIKE 'file:%'`);
  const old = { cutoff };
  try {
    return {
      confirmations: inBatches(db, PRUNE_CONFIRMATIONS, old),
      shipments: inBatches(db, PRUNE_SHIPMENTS, old) + inBatches(db, PRUNE_LEFT_SHIPMENTS, old),
      inboxFiles: inBatches(db, PRUNE_LEDGER, old),
      inboxAttempts: inBatches(db, PRUNE_ATTEMPTS, old),
      stockPushes: pruneOldPushes(db, cutoff),
      held: pruneDecidedHeld(db, cutoff),
      operatorRequests: inBatches(db, PRUNE_REQUESTS, old),
      apiCalls: inBatches(db, PRUNE_CALLS, { cutoff: now - CALLS_KEPT_MS }),
      loginAttempts: inBatches(db, PRUNE_LOGINS, { cutoff: now - CALLS_KEPT_MS }),
      productRequests: inBatches(db, PRUNE_PRODUCT_REQUESTS, old),
      productDecisions:
        inBatches(db, PRUNE_DECISIONS, old) + inBatches(db, PRUNE_DECLINED_FILES, old),
    };
  } finally {
    db.exec('DELETE FROM temp.retention_sources');
  }
}

/** stock_pushes walked once in key order, a batch of old rows deleted per transaction. */
function pruneOldPushes(db: StateDb, cutoff: number): number {
  type Key = { kind: string; dc: string; sku: string };
  const next = db.prepare<[Key & { cutoff: number }], Key>(OLD_PUSHES);
  const remove = db.prepare<[Key]>(
    'DELETE FROM stock_pushes WHERE kind = @kind AND dc = @dc AND sku = @sku',
  );
  let total = 0;
  const batch = db.transaction((after: Key): Key | undefined => {
    const keys = next.all({ ...after, cutoff });
    for (const k of keys) remove.run(k);
    total += keys.length;
    return keys.length === BATCH ? keys.at(-1) : undefined;
  });
  for (let after: Key | undefined = { kind: '', dc: '', sku: '' }; after !== undefined; )
    after = batch.immediate(after);
  return total;
}

/** Decided held entries (HELD_DECIDED) and what they kept aside, a batch per transaction. */
function pruneDecidedHeld(db: StateDb, cutoff: number): number {
  const lastRelease = new KeyValueStore(db).get('snapshot.last_release')?.heldId ?? -1;
  const ids = db.prepare<[{ cutoff: number; lastRelease: number }], number>(HELD_DECIDED).pluck();
  const rows = db.prepare<[number]>('DELETE FROM held_rows WHERE held_id = ?');
  const entry = db.prepare<[number]>('DELETE FROM held WHERE id = ?');
  const batch = db.transaction(() => {
    const found = ids.all({ cutoff, lastRelease });
    for (const id of found) {
      rows.run(id);
      entry.run(id);
    }
    return found.length;
  });
  let total = 0;
  for (let n = batch.immediate(); n > 0; n = batch.immediate()) total += n;
  return total;
}

/**
 * Ledger ids whose stored file must stay in processed/ or failed/ however old: rows not finished,
 * and files with confirmations or products still waiting for the portal's answer (their report
 * gets it).
 */
export function ledgerIdsAwaitingReports(db: StateDb): Set<number> {
  const ids = db
    .prepare<[], number>(
      `SELECT id FROM inbox_files WHERE status = 'committed'
       UNION SELECT file_id FROM shipment_confirmations WHERE status = 'pending' AND file_id IS NOT NULL
       UNION SELECT file_id FROM product_requests WHERE ${WAITING('product_requests')}`,
    )
    .pluck()
    .all();
  return new Set(ids);
}
