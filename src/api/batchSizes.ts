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
 * Refusals are what the search pays for, so it spends at most ⌈log₂(configured / limit)⌉ + 1 of
 * them: the size is halved until a batch is accepted; then each batch grows by 5 % over the
 * largest accepted (those batches carry real rows, so growing costs nothing) until one is refused
 * or the accepted and refused sizes are within 5 %; the first refusal above an accepted size ends
 * the search (`settled`) at the largest accepted. Never below LEARN_FLOOR (or the configured size,
 * when smaller) unless a batch that small was refused. Pure.
 */
export function batchSizeFrom(learnt: LearntBatchSize | undefined, configured: number): number {
  if (learnt === undefined) return configured;
  const accepted = learnt.maxAccepted;
  let size: number;
  if (accepted === null) size = Math.max(1, Math.floor(learnt.minRejected / 2));
  else {
    const step = Math.max(1, Math.floor(accepted * 0.05));
    const searching = learnt.settled !== true && learnt.minRejected - accepted > step;
    size = searching ? Math.min(learnt.minRejected - 1, accepted + step) : accepted;
  }
  if (learnt.minRejected > LEARN_FLOOR) size = Math.max(size, LEARN_FLOOR);
  return Math.max(1, Math.min(configured, size));
}

/** A size learnt at `learntAt` (0: of unknown age) is due to be probed afresh at `now`. */
export function reprobeDue(learntAt: number | null, now: number): boolean {
  return learntAt !== null && now - learntAt >= REPROBE_AFTER_MS;
}

/**
 * The largest batch per kind the portal accepts, learnt from refusals and kept in state.db, so
 * that the client, the push and the dry run (`plan`) all send or count batches of one size. What
 * one kind learnt starts the other (the portal's limit is the same for both, as far as the spec
 * says): a kind with nothing learnt of its own uses the other's, and learns on from there only if
 * refused. Works on a read-only connection for `max`.
 */
export class BatchSizes {
  readonly #kv: KeyValueStore;
  readonly #configured: number;

  constructor(db: StateDb, configured: number) {
    this.#kv = new KeyValueStore(db);
    this.#configured = configured;
  }

  /** What is known for `kind`: its own learnt size, else the other kind's. */
  #learnt(kind: BulkKind): LearntBatchSize | undefined {
    return this.#kv.get(kvKey.bulkMax(kind)) ?? this.#kv.get(kvKey.bulkMax(otherKind(kind)));
  }

  /** The batch size to send now for `kind`. */
  max(kind: BulkKind): number {
    return batchSizeFrom(this.#learnt(kind), this.#configured);
  }

  /** The portal refused a batch of `size` as too large (at `now`). */
  rejected(kind: BulkKind, size: number, now: number): void {
    const s = this.#learnt(kind);
    const minRejected = Math.min(size, s?.minRejected ?? size);
    const maxAccepted =
      s?.maxAccepted != null && s.maxAccepted < minRejected ? s.maxAccepted : null;
    // A refusal above a size the portal took ends the search there.
    const settled = maxAccepted !== null;
    this.#kv.set(kvKey.bulkMax(kind), { maxAccepted, minRejected, learntAt: now, settled });
  }

  /** The portal accepted a batch of `size`. */
  accepted(kind: BulkKind, size: number): void {
    const s = this.#learnt(kind);
    if (s === undefined) return; // never refused: the configured size stands
    if (size >= s.minRejected || (s.maxAccepted !== null && size <= s.maxAccepted)) return;
    this.#kv.set(kvKey.bulkMax(kind), { ...s, maxAccepted: size });
  }

  /** Forgets what was learnt, for both kinds (after a day: the portal may have raised its limit). */
  forget(): void {
    this.#kv.delete(kvKey.bulkMax('factory'));
    this.#kv.delete(kvKey.bulkMax('dc'));
  }

  /** When a refusal was last learnt from; null when nothing is learnt (or of unknown age: 0). */
  learntAt(kind: BulkKind): number | null {
    const s = this.#learnt(kind);
    return s === undefined ? null : (s.learntAt ?? 0);
  }
}

const otherKind = (kind: BulkKind): BulkKind => (kind === 'factory' ? 'dc' : 'factory');
