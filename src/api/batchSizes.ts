import type { StockKind } from '../domain/stock.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { kvKey, type LearntBatchSize } from '../state/kvKeys.ts';

export type BulkKind = StockKind;

/**
 * The size a refusal above it never takes the learnt size below: one refusal (a portal that
 * briefly answers 413 under load, a refusal misread as "too large") must not leave every later
 * push paying hundreds of calls. Only a refusal of a batch this small or smaller, said to be too
 * large, learns below it.
 */
export const LEARN_FLOOR = 50;
/** A learnt size is forgotten, and the configured size tried again, this long after it was learnt. */
export const REPROBE_AFTER_MS = 24 * 3_600_000;

/**
 * The batch to send, from the configured size and what was learnt: min(configured, learnt).
 * While the largest size accepted and the smallest refused are more than 5 % apart, the size
 * between them is tried (a binary search over real batches): halving alone would settle far
 * below the portal's limit (1000 → 500 → 250 for a limit of 400) and every later push would pay
 * for it. Never below LEARN_FLOOR (or the configured size, when smaller) unless a batch that small
 * was refused. Pure.
 */
export function batchSizeFrom(learnt: LearntBatchSize | undefined, configured: number): number {
  if (learnt === undefined) return configured;
  const accepted = learnt.maxAccepted;
  let size: number;
  if (accepted === null) size = Math.max(1, Math.floor(learnt.minRejected / 2));
  else if (learnt.minRejected - accepted > Math.max(1, Math.floor(accepted * 0.05))) {
    size = Math.floor((accepted + learnt.minRejected) / 2);
  } else size = accepted;
  if (learnt.minRejected > LEARN_FLOOR) size = Math.max(size, LEARN_FLOOR);
  return Math.max(1, Math.min(configured, size));
}

/** A size learnt at `learntAt` (0: of unknown age) is due to be probed afresh at `now`. */
export function reprobeDue(learntAt: number | null, now: number): boolean {
  return learntAt !== null && now - learntAt >= REPROBE_AFTER_MS;
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

  /** The portal refused a batch of `size` as too large (at `now`). */
  rejected(kind: BulkKind, size: number, now: number): void {
    const s = this.#kv.get(kvKey.bulkMax(kind));
    const minRejected = Math.min(size, s?.minRejected ?? size);
    const maxAccepted =
      s?.maxAccepted != null && s.maxAccepted < minRejected ? s.maxAccepted : null;
    this.#kv.set(kvKey.bulkMax(kind), { maxAccepted, minRejected, learntAt: now });
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

  /** When a refusal was last learnt from; null when nothing is learnt (or of unknown age: 0). */
  learntAt(kind: BulkKind): number | null {
    const s = this.#kv.get(kvKey.bulkMax(kind));
    return s === undefined ? null : (s.learntAt ?? 0);
  }
}
