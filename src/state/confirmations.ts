import type { Confirmation, ShipmentAction } from '../domain/shipment.ts';
import type { StateDb } from './db.ts';

/** One confirmation row from an inbox file. */
export interface ConfirmationInput extends Confirmation {
  /** Line (or element) in the file, kept with the row for the operator. */
  readonly line: number;
}

/**
 * - new: stored as pending, to be sent;
 * - duplicate: the same (order, action, carrier, tracking) is already stored; nothing stored;
 * - conflict: the order already has a confirmation with another carrier or tracking number;
 *   stored with status 'conflict' and never sent.
 */
export type ConfirmationOutcome = 'new' | 'duplicate' | 'conflict';

export interface ConfirmationResult {
  readonly line: number;
  readonly orderNumber: string;
  readonly action: ShipmentAction;
  readonly outcome: ConfirmationOutcome;
  /** The stored row (the existing one for a duplicate). */
  readonly id: number;
  /** For a conflict: the carrier and tracking number already stored for the order. */
  readonly existing?: { readonly carrier: string; readonly trackingNumber: string };
}

interface Existing {
  id: number;
  action: string;
  carrier: string;
  tracking_number: string;
}

function classify(
  rows: readonly Existing[],
  c: Pick<ConfirmationInput, 'action' | 'carrier' | 'trackingNumber'>,
): { outcome: ConfirmationOutcome; match?: Existing } {
  const same = rows.find(
    (r) =>
      r.action === c.action && r.carrier === c.carrier && r.tracking_number === c.trackingNumber,
  );
  if (same) return { outcome: 'duplicate', match: same };
  const other = rows.find((r) => r.carrier !== c.carrier || r.tracking_number !== c.trackingNumber);
  if (other) return { outcome: 'conflict', match: other };
  return { outcome: 'new' };
}

const SELECT_ORDER =
  'SELECT id, action, carrier, tracking_number FROM shipment_confirmations WHERE order_number = ? ORDER BY id';

/**
 * Stores confirmation rows in order, in one transaction (a savepoint inside the caller's), and
 * returns each row's outcome. Rows later in the same file see the earlier ones.
 */
export function storeConfirmations(
  db: StateDb,
  rows: readonly ConfirmationInput[],
  options: { readonly fileId: number | null; readonly now: number },
): ConfirmationResult[] {
  const select = db.prepare<[string], Existing>(SELECT_ORDER);
  const insert = db.prepare(
    `INSERT INTO shipment_confirmations
       (order_number, action, carrier, tracking_number, is_collected, status, error, next_attempt_at, file_id, line, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return db.transaction(() => {
    const out: ConfirmationResult[] = [];
    for (const c of rows) {
      const { outcome, match } = classify(select.all(c.orderNumber), c);
      const base = { line: c.line, orderNumber: c.orderNumber, action: c.action, outcome };
      if (outcome === 'duplicate') {
        out.push({ ...base, id: match!.id });
        continue;
      }
      const error =
        outcome === 'conflict'
          ? `order already confirmed with carrier ${match!.carrier}, tracking ${match!.tracking_number}`
          : null;
      const id = Number(
        insert.run(
          c.orderNumber,
          c.action,
          c.carrier,
          c.trackingNumber,
          c.isCollected ? 1 : 0,
          outcome === 'conflict' ? 'conflict' : 'pending',
          error,
          options.now,
          options.fileId,
          c.line,
          options.now,
        ).lastInsertRowid,
      );
      out.push(
        outcome === 'conflict'
          ? {
              ...base,
              id,
              existing: { carrier: match!.carrier, trackingNumber: match!.tracking_number },
            }
          : { ...base, id },
      );
    }
    return out;
  })();
}

/**
 * Read-only: what storing these rows would give, for dry runs. Rows later in the list see the
 * earlier ones as if stored.
 */
export function classifyConfirmations(
  db: StateDb | undefined,
  rows: readonly ConfirmationInput[],
): ConfirmationOutcome[] {
  const select = db?.prepare<[string], Existing>(SELECT_ORDER);
  const seen = new Map<string, Existing[]>();
  return rows.map((c) => {
    let list = seen.get(c.orderNumber);
    if (list === undefined) {
      list = select ? select.all(c.orderNumber) : [];
      seen.set(c.orderNumber, list);
    }
    const { outcome } = classify(list, c);
    if (outcome !== 'duplicate') {
      list.push({ id: 0, action: c.action, carrier: c.carrier, tracking_number: c.trackingNumber });
    }
    return outcome;
  });
}
