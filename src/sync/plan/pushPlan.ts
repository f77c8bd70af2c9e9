import type { StockKey, StockRow } from '../../domain/stock.ts';

/** One touched key as the push sees it: what the ERP wants, what the portal holds, any failure. */
export interface PushCandidate extends StockKey {
  readonly desired: number;
  /** Known remote quantity; null when the portal's value is not known. */
  readonly remote: number | null;
  /** A stored failure for this key, if any. */
  readonly failure: { readonly quantity: number; readonly nextAttemptAt: number } | null;
}

export interface PushPlan {
  /** Rows to send, in candidate order. */
  readonly send: StockRow[];
  /** Keys that need no call now: already equal, or waiting for their failure's next attempt. */
  readonly settle: StockKey[];
}

/**
 * Decides, for touched keys, which to send: only where desired differs from the known remote, and
 * not while a failure of the same quantity waits for its next attempt (a newer quantity goes now).
 */
export function planPush(candidates: readonly PushCandidate[], now: number): PushPlan {
  const send: StockRow[] = [];
  const settle: StockKey[] = [];
  for (const c of candidates) {
    const key = { kind: c.kind, dc: c.dc, sku: c.sku };
    if (c.remote === c.desired) settle.push(key);
    else if (c.failure && c.failure.quantity === c.desired && c.failure.nextAttemptAt > now)
      settle.push(key);
    else send.push({ ...key, quantity: c.desired });
  }
  return { send, settle };
}

/** Splits rows into batches of at most `size`. */
export function batches<T>(rows: readonly T[], size: number): T[][] {
  if (size < 1) throw new RangeError('batch size must be at least 1');
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/** The fewest bulk calls that can carry `changes` rows. */
export function minimumCalls(changes: number, batchSize: number): number {
  return Math.ceil(changes / batchSize);
}
