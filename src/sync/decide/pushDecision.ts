import type { PendingKey, StockKey, StockRow } from '../../domain/stock.ts';

export interface PushDecision {
  /** Rows to send, in the order of the pending keys. */
  readonly send: StockRow[];
  /** Pending keys that need no call now: already equal, or waiting for their failure's next attempt. */
  readonly settle: StockKey[];
}

/**
 * Decides, for pending keys, which to send: only where desired differs from the known remote,
 * and not while a failure of the same quantity waits for its next attempt (a newer quantity goes
 * now).
 */
export function decidePush(pending: readonly PendingKey[], now: number): PushDecision {
  const send: StockRow[] = [];
  const settle: StockKey[] = [];
  for (const c of pending) {
    const key = { kind: c.kind, dc: c.dc, sku: c.sku };
    if (c.remote === c.desired) settle.push(key);
    else if (c.failure && c.failure.quantity === c.desired && c.failure.nextAttemptAt > now)
      settle.push(key);
    else send.push({ ...key, quantity: c.desired });
  }
  return { send, settle };
}
