import type { ShipmentAction } from '../../domain/shipment.ts';

/**
 * The rows of the shipments family's tables as SQLite returns them (`SELECT *`), as the
 * migrations made them. The stores here and the reads across families (keyFacts.ts) take them
 * from here.
 */

/** shipments: each order the portal listed as ready to ship, and its hand-over. */
export interface ShipmentRow {
  readonly order_number: string;
  /** The order as the portal last listed it, as JSON. */
  readonly record: string;
  readonly first_seen_at: number;
  readonly last_seen_at: number;
  readonly left_list_at: number | null;
  readonly exported_at: number | null;
  readonly export_file: string | null;
  readonly confirmed_at: number | null;
  /** Migration 9. */
  readonly unconfirmed_warned_at: number | null;
}

/** shipment_confirmations: what the ERP confirmed, and its sending to the portal. */
export interface ConfirmationRow {
  readonly id: number;
  readonly order_number: string;
  readonly action: ShipmentAction;
  readonly carrier: string;
  readonly tracking_number: string;
  readonly is_collected: number;
  /** pending, confirmed, failed, conflict or replaced. */
  readonly status: string;
  readonly error: string | null;
  readonly attempts: number;
  readonly sent_without_answer: number;
  readonly next_attempt_at: number;
  readonly file_id: number | null;
  readonly line: number | null;
  readonly created_at: number;
  readonly confirmed_at: number | null;
}
