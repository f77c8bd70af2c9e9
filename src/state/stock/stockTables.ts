import type { StockKind } from '../../domain/stock.ts';

/**
 * The rows of the stock family's tables as SQLite returns them (`SELECT *`): one shape per table,
 * its columns as the migrations made them. The stores here and the reads across families
 * (keyFacts.ts) take them from this file; none declares them again.
 */

/** A stock key's columns, in every table keyed by it (`dc` is '' for factory stock). */
export interface StockKeyColumns {
  readonly kind: StockKind;
  readonly dc: string;
  readonly sku: string;
}

/** desired_stock: what the ERP asks for, and what is offered under the stock rules. */
export interface DesiredStockRow extends StockKeyColumns {
  /** The quantity offered to the portal (after the stock rules, where they exist). */
  readonly quantity: number;
  /** `file:<ledger id>` or `snapshot`. */
  readonly source: string;
  readonly updated_at: number;
  readonly source_at: number;
  /** Migration 10: NULL for the snapshot and for rows written before it (then `source` tells). */
  readonly source_file_id: number | null;
  readonly source_line: number | null;
  /** Migration 16 (stock rules): NULL only in rows no apply has written since. */
  readonly erp_quantity: number | null;
  readonly rule: string | null;
  /** 1: a rule excludes the key (never pushed). */
  readonly excluded: number;
}

/** remote_stock: what the portal is known to hold. */
export interface RemoteStockRow extends StockKeyColumns {
  readonly quantity: number;
  readonly platform_sku: string | null;
  readonly seen_at: number;
}

/** pending_stock: keys whose offered quantity the portal does not hold yet. */
export interface PendingStockRow extends StockKeyColumns {
  readonly since: number;
}

/** stock_failures: items the portal refused, kept for retry. */
export interface StockFailureRow extends StockKeyColumns {
  readonly quantity: number;
  readonly error: string;
  /** 1: the portal answered that the key is unknown to it. */
  readonly not_found: number;
  readonly attempts: number;
  readonly first_failed_at: number;
  readonly last_failed_at: number;
  readonly next_attempt_at: number;
}
