import type { StockKind } from '../domain/stock.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { kvKey, type LearntBatchSize } from '../state/kvKeys.ts';

export type BulkKind = StockKind;

/**
 * The batch to send, from the configured size and what was learnt: min(configured, learnt).
 * While the largest size accepted and the smallest refused are more than 5 % apart, the size
 * between them is tried (a binary search over real batches): halving alone would settle far
 * below the portal's limit (1000 → 500 → 250 for a limit of 400) and every later push would pay
 * for it. Pure.
 */
export function batchSizeFrom(learnt: LearntBatchSize | undefined, configured: number): number {
  if (learnt === undefined) return configured;
  const accepted = learnt.maxAccepted;
  let size: number;
  if (accepted === null) size = Math.max(1, Math.floor(learnt.minRejected / 2));
  else if (learnt.minRejected - accepted > Math.max(1, Math.floor(accepted * 0.05))) {
    size = Math.floor((accepted + learnt.minRejected) / 2);
  } else size = accepted;
  return Math.max(1, Math.min(configured, size));
}

/**
 * The largest batch per kind the portal accepts, learnt from refusals and kept in state.db, so
 * that the client, the push and the dry run (`plan`) all send or count batches of one size.
 * Works on a read-only connection for `max`.
 */
export class BatchSizes {
  readonly #kv: KeyValueStore;
  readonly #configured: number;

  constructor(db: StateDb, configured: number) {
    this.#kv = new KeyValueStore(db);
    this.#configured = configured;
  }

  /** The batch size to send now for `kind`. */
  max(kind: BulkKind): number {
    return batchSizeFrom(this.#kv.get(kvKey.bulkMax(kind)), this.#configured);
  }

  /** The portal refused a batch of `size` as too large. */
  rejected(kind: BulkKind, size: number): void {
    const s = this.#kv.get(kvKey.bulkMax(kind));
    const minRejected = Math.min(size, s?.minRejected ?? size);
    const maxAccepted =
      s?.maxAccepted != null && s.maxAccepted < minRejected ? s.maxAccepted : null;
    this.#kv.set(kvKey.bulkMax(kind), { maxAccepted, minRejected });
  }

  /** The portal accepted a batch of `size`. */
  accepted(kind: BulkKind, size: number): void {
    const s = this.#kv.get(kvKey.bulkMax(kind));
    if (s === undefined) return; // never refused: the configured size stands
    if (size >= s.minRejected || (s.maxAccepted !== null && size <= s.maxAccepted)) return;
    this.#kv.set(kvKey.bulkMax(kind), { ...s, maxAccepted: size });
  }

  /** Forgets what was learnt (after the portal raised its limit). */
  forget(kind: BulkKind): void {
    this.#kv.delete(kvKey.bulkMax(kind));
  }
}
