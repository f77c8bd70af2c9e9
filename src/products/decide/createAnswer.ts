import { PortalHttpError } from '../../api/index.ts';
import { failurePolicy } from '../../failures/failurePolicy.ts';

/**
 * What a failed creation (POST /products or /brands) means for its record (pure):
 * - `unanswered`: it may have been applied (a reset, a timeout, a 5xx): the intent stays, and
 *   the portal is asked before anything is sent again;
 * - `not-sent`: it was not applied (a 429, a spent budget, a login wait, a 401, 403): back in line;
 * - `maybe-exists`: refused in a way that may say the portal has it already (422 or 409, or an
 *   answer naming the SKU or the name): the portal is asked whether it has it;
 * - `refused`: refused for good, with the portal's words.
 * The job decides when to come back for the first two (the failure policy, on the error).
 */
export type CreateVerdict =
  | { readonly kind: 'unanswered' }
  | { readonly kind: 'not-sent' }
  | { readonly kind: 'maybe-exists'; readonly message: string }
  | { readonly kind: 'refused'; readonly message: string };

export function createVerdict(err: unknown, identifyingField: 'sku' | 'name'): CreateVerdict {
  const action = failurePolicy(err);
  if (action.kind === 'retry')
    return action.outcomeUnknown ? { kind: 'unanswered' } : { kind: 'not-sent' };
  if (action.kind !== 'final') return { kind: 'not-sent' };
  const message = `HTTP ${action.status ?? '?'}: ${action.message}`;
  if (
    err instanceof PortalHttpError &&
    (err.status === 409 ||
      err.status === 422 ||
      err.apiCode === 'already_exists' ||
      err.field === identifyingField)
  ) {
    return { kind: 'maybe-exists', message };
  }
  return { kind: 'refused', message };
}
