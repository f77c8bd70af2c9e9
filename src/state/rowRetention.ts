import type { StateDb } from './db.ts';
import { appliedCondition } from './inbox/inboxLedger.ts';

/** Rows removed by one retention run, per table. */
export interface PrunedRows {
  readonly inboxFiles: number;
  readonly shipments: number;
  readonly confirmations: number;
  /** Counted failed attempts at files (inbox_attempts) whose last attempt is older. */
  readonly inboxAttempts: number;
  /** Answered product requests (created, existing, failed); the catalogue itself is kept. */
  readonly productRequests: number;
}

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
 * Shipments confirmed before the cutoff whose confirmations are all confirmed. An order not
 * confirmed (still listed, handed over, or gone from the list unconfirmed) is never pruned: its
 * row is what keeps it from being handed to the ERP twice.
 */
const PRUNE_SHIPMENTS = `
DELETE FROM shipments WHERE order_number IN (
  SELECT s.order_number FROM shipments s
   WHERE s.confirmed_at < @cutoff
     AND NOT EXISTS (SELECT 1 FROM shipment_confirmations c
                      WHERE c.order_number = s.order_number AND ${OPEN('c')})
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
 * Product requests answered before the cutoff (created, existing, failed). What the portal has is
 * kept in `catalogue`, which is never pruned: it is what keeps a product from being sent twice.
 */
const PRUNE_PRODUCT_REQUESTS = `
DELETE FROM product_requests WHERE id IN (
  SELECT id FROM product_requests
   WHERE state IN ('created', 'existing', 'failed') AND done_at < @cutoff LIMIT ${BATCH})`;

/**
 * Deletes the finished rows of inbox_files, shipments and shipment_confirmations older than
 * `cutoff` (epoch ms) that nothing needs (see the statements above), a batch per transaction so
 * that other writers wait moments only. Safe to run at any time and twice.
 */
export function pruneFinishedRows(db: StateDb, cutoff: number): PrunedRows {
  // The ledger ids some key's desired quantity still comes from, read once per run: a key's
  // source only ever moves to a newer file, so an old row unneeded now stays unneeded.
  db.exec(`CREATE TEMP TABLE IF NOT EXISTS retention_sources (id INTEGER PRIMARY KEY);
           DELETE FROM temp.retention_sources;`);
  db.exec(`INSERT OR IGNORE INTO temp.retention_sources (id)
           SELECT DISTINCT CAST(substr(source, 6) AS INTEGER) FROM desired_stock WHERE source LIKE 'file:%'`);
  const inBatches = (sql: string) => {
    const stmt = db.prepare<[{ cutoff: number }]>(sql);
    const once = db.transaction(() => stmt.run({ cutoff }).changes);
    let total = 0;
    for (let n = once.immediate(); n > 0; n = once.immediate()) total += n;
    return total;
  };
  try {
    return {
      confirmations: inBatches(PRUNE_CONFIRMATIONS),
      shipments: inBatches(PRUNE_SHIPMENTS),
      inboxFiles: inBatches(PRUNE_LEDGER),
      inboxAttempts: inBatches(PRUNE_ATTEMPTS),
      productRequests: inBatches(PRUNE_PRODUCT_REQUESTS),
    };
  } finally {
    db.exec('DELETE FROM temp.retention_sources');
  }
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
