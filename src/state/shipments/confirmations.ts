import type { Confirmation, ShipmentAction } from '../../domain/shipment.ts';
import type { StateDb } from '../db.ts';

/** One confirmation row from an inbox file. */
export interface ConfirmationInput extends Confirmation {
  /** Line (or element) in the file, kept with the row for the operator. */
  readonly line: number;
}

/**
 * - new: stored as pending, to be sent (also a correction: see `replaced`);
 * - duplicate: the same (order, action, carrier, tracking) is already stored; nothing stored;
 * - conflict: the order is already confirmed on the portal with another carrier or tracking
 *   number; stored with status 'conflict' and never sent.
 */
export type ConfirmationOutcome = 'new' | 'duplicate' | 'conflict';

/** A stored confirmation a correction took the place of. */
export interface ReplacedConfirmation {
  readonly id: number;
  readonly action: ShipmentAction;
  readonly carrier: string;
  readonly trackingNumber: string;
  readonly status: 'pending' | 'failed';
}

export interface ConfirmationResult {
  readonly line: number;
  readonly orderNumber: string;
  readonly action: ShipmentAction;
  readonly outcome: ConfirmationOutcome;
  /** The stored row (the existing one for a duplicate). */
  readonly id: number;
  /** For a conflict: the carrier and tracking number the portal was sent for the order. */
  readonly existing?: { readonly carrier: string; readonly trackingNumber: string };
  /**
   * For a correction: the order's earlier confirmations, still pending or failed, that had
   * another carrier or tracking number; they are closed as 'replaced' and never sent. One of
   * another action is stored again with the corrected carrier and tracking (`alsoStored`), so
   * that every action of the order goes with the same parcel.
   */
  readonly replaced?: readonly ReplacedConfirmation[];
  /** Ids of those re-stored actions. */
  readonly alsoStored?: readonly number[];
}

interface Existing {
  id: number;
  action: ShipmentAction;
  carrier: string;
  tracking_number: string;
  is_collected: number;
  status: string;
}

type Parcel = Pick<ConfirmationInput, 'carrier' | 'trackingNumber'>;

const sameParcel = (r: Existing, c: Parcel) =>
  r.carrier === c.carrier && r.tracking_number === c.trackingNumber;

/**
 * How a row relates to what the order already has. A correction replaces confirmations that
 * were not confirmed yet (pending or failed); only a confirmed one with another parcel makes a
 * conflict. Rows closed earlier (replaced, conflict) count for nothing but a duplicate.
 */
function classify(
  rows: readonly Existing[],
  c: Pick<ConfirmationInput, 'action' | 'carrier' | 'trackingNumber'>,
): { outcome: ConfirmationOutcome; match?: Existing; replace: Existing[] } {
  const same = rows.find(
    (r) => r.action === c.action && sameParcel(r, c) && r.status !== 'replaced',
  );
  if (same) return { outcome: 'duplicate', match: same, replace: [] };
  const confirmed = rows.find((r) => r.status === 'confirmed' && !sameParcel(r, c));
  if (confirmed) return { outcome: 'conflict', match: confirmed, replace: [] };
  const replace = rows.filter(
    (r) => (r.status === 'pending' || r.status === 'failed') && !sameParcel(r, c),
  );
  return { outcome: 'new', replace };
}

const SELECT_ORDER =
  'SELECT id, action, carrier, tracking_number, is_collected, status FROM shipment_confirmations WHERE order_number = ? ORDER BY id';

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
  // A (order, action, parcel) closed as replaced comes back when a later correction names it
  // again (the table keeps one row per such tuple).
  const upsert = db.prepare<
    [
      string,
      string,
      string,
      string,
      number,
      string,
      string | null,
      number,
      number | null,
      number,
      number,
    ]
  >(
    `INSERT INTO shipment_confirmations
       (order_number, action, carrier, tracking_number, is_collected, status, error, next_attempt_at, file_id, line, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (order_number, action, carrier, tracking_number) DO UPDATE SET
       is_collected = excluded.is_collected, status = excluded.status, error = excluded.error,
       next_attempt_at = excluded.next_attempt_at, file_id = excluded.file_id, line = excluded.line,
       attempts = 0, sent_without_answer = 0
     RETURNING id`,
  );
  const close = db.prepare<[string, number]>(
    `UPDATE shipment_confirmations SET status = 'replaced', error = ? WHERE id = ?`,
  );
  const store = (
    c: ConfirmationInput,
    action: ShipmentAction,
    isCollected: boolean,
    status: 'pending' | 'conflict',
    error: string | null,
  ): number =>
    (
      upsert.get(
        c.orderNumber,
        action,
        c.carrier,
        c.trackingNumber,
        isCollected ? 1 : 0,
        status,
        error,
        options.now,
        options.fileId,
        c.line,
        options.now,
      ) as { id: number }
    ).id;

  return db.transaction(() => {
    const out: ConfirmationResult[] = [];
    for (const c of rows) {
      const existing = select.all(c.orderNumber);
      const { outcome, match, replace } = classify(existing, c);
      const base = { line: c.line, orderNumber: c.orderNumber, action: c.action, outcome };
      if (outcome === 'duplicate') {
        out.push({ ...base, id: match!.id });
        continue;
      }
      if (outcome === 'conflict') {
        const error = `order already confirmed with carrier ${match!.carrier}, tracking ${match!.tracking_number}`;
        const id = store(c, c.action, c.isCollected, 'conflict', error);
        out.push({
          ...base,
          id,
          existing: { carrier: match!.carrier, trackingNumber: match!.tracking_number },
        });
        continue;
      }
      const why = `replaced by carrier ${c.carrier}, tracking ${c.trackingNumber}${
        options.fileId === null ? '' : ` (file ${options.fileId}, line ${c.line})`
      }`;
      const alsoStored: number[] = [];
      for (const r of replace) close.run(why, r.id);
      // The other action of the order goes again with the corrected parcel, in its place: a
      // 'shipped' before this 'collected' (ids keep the order of sending).
      for (const action of new Set(replace.map((r) => r.action))) {
        if (action === c.action) continue;
        const first = replace.find((r) => r.action === action)!;
        const kept = existing.some(
          (r) => r.action === action && sameParcel(r, c) && r.status !== 'replaced',
        );
        if (!kept) alsoStored.push(store(c, action, first.is_collected === 1, 'pending', null));
      }
      const id = store(c, c.action, c.isCollected, 'pending', null);
      out.push({
        ...base,
        id,
        ...(replace.length === 0
          ? {}
          : {
              replaced: replace.map((r) => ({
                id: r.id,
                action: r.action,
                carrier: r.carrier,
                trackingNumber: r.tracking_number,
                status: r.status as 'pending' | 'failed',
              })),
              alsoStored,
            }),
      });
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
    const { outcome, replace } = classify(list, c);
    for (const r of replace) r.status = 'replaced';
    if (outcome !== 'duplicate') {
      list.push({
        id: 0,
        action: c.action,
        carrier: c.carrier,
        tracking_number: c.trackingNumber,
        is_collected: c.isCollected ? 1 : 0,
        status: outcome === 'conflict' ? 'conflict' : 'pending',
      });
    }
    return outcome;
  });
}
