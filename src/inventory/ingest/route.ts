import type { LedgerEntry } from '../../state/inbox/inboxLedger.ts';
import type { InboxFormat } from '../parse/records.ts';

/**
 * Where a hashed inbox file goes next: a pure decision over facts read beforehand (routeFacts in
 * process.ts reads them from the ledger, the attempts and kv).
 */

export interface RouteFacts {
  /** The file's name in inbox/. */
  readonly name: string;
  /** A ledger row committed (not yet finished) with this content, if any. */
  readonly committed: LedgerEntry | undefined;
  /** Why the file goes to failed/ unread (too many failed attempts), if it does. */
  readonly givenUp: string | undefined;
  /** The latest applied file of this content, if any. */
  readonly applied: LedgerEntry | undefined;
  /** The id of the newest applied file of that file's kind. */
  readonly latestAppliedOfKind: number | undefined;
  /** When the snapshot was last applied (kv `snapshot.applied_at`). */
  readonly snapshotAppliedAt: number | undefined;
  /** The format its name says; undefined for an extension no reader knows. */
  readonly format: InboxFormat | undefined;
}

export type Route =
  /** A crash came after its commit: only its apply (if cut short) and its move are finished. */
  | { readonly type: 'resume'; readonly entry: LedgerEntry }
  /** Too many attempts failed: to failed/ unread, with this reason. */
  | { readonly type: 'give_up'; readonly reason: string }
  /** Its content is the newest word already: recorded as a duplicate, nothing applied. */
  | { readonly type: 'duplicate'; readonly prior: LedgerEntry }
  /** No reader for its extension: to failed/. */
  | { readonly type: 'unsupported' }
  /** Read, checked and applied. */
  | { readonly type: 'read'; readonly format: InboxFormat };

export function routeFile(f: RouteFacts): Route {
  if (f.committed !== undefined && f.committed.name === f.name) {
    return { type: 'resume', entry: f.committed };
  }
  if (f.givenUp !== undefined) return { type: 'give_up', reason: f.givenUp };
  const prior = duplicateOf(f);
  if (prior !== undefined) return { type: 'duplicate', prior };
  if (f.format === undefined) return { type: 'unsupported' };
  return { type: 'read', format: f.format };
}

/**
 * A file whose content was applied before is a duplicate, unless a newer file of the same kind
 * (or, for stock, a snapshot) was applied since: then it is applied again, as the newest word.
 */
function duplicateOf(f: RouteFacts): LedgerEntry | undefined {
  const prior = f.applied;
  if (prior === undefined || prior.kind === null) return undefined;
  if (f.latestAppliedOfKind !== prior.id) return undefined;
  if (prior.kind !== 'shipment_confirmations' && prior.kind !== 'products') {
    const at = f.snapshotAppliedAt;
    if (at !== undefined && at >= (prior.committedAt ?? 0)) return undefined;
  }
  return prior;
}
