import { isPortalError, PortalHttpError } from '../../api/index.ts';
import { failurePolicy } from '../../failures/failurePolicy.ts';

/**
 * What a failed creation (POST /products or /brands) means for its record (pure):
 * - `not-sent`: the portal cannot have applied it — the call never went (a spent budget, a login
 *   wait), or the portal refused it before doing anything (429, 401, 403): back in line;
 * - `maybe-exists`: refused in a way that may say the portal has it already (422 or 409, or an
 *   answer naming the SKU or the name): the portal is asked whether it has it;
 * - `refused`: refused for good, with the portal's words;
 * - `unanswered`: anything else — a reset, a timeout, a 5xx, an answer that could not be read, a
 *   client closed with the call in flight, an error of ours: it may have been applied, so the
 *   intent stays and the portal is asked before anything is sent again (one read, never a
 *   second product).
 * The job decides when to come back for the first and the last (the failure policy, on the error).
 */
export type CreateVerdict =
  | { readonly kind: 'unanswered' }
  | { readonly kind: 'not-sent' }
  | { readonly kind: 'maybe-exists'; readonly message: string }
  | { readonly kind: 'refused'; readonly message: string };

/** Codes that say the portal did not apply the call. */
const NOT_SENT = new Set([
  'E_BUDGET',
  'E_LOGIN_WAIT',
  'E_TOKEN_REFUSED',
  'E_LOGIN_REJECTED',
  'E_LOGIN_BLOCKED',
  'E_RATE_LIMITED',
]);

export function createVerdict(err: unknown, identifyingField: 'sku' | 'name'): CreateVerdict {
  if (!isPortalError(err)) return { kind: 'unanswered' };
  if (NOT_SENT.has(err.code)) return { kind: 'not-sent' };
  if (!(err instanceof PortalHttpError)) return { kind: 'unanswered' };
  const status = err.status ?? 0;
  if (status === 401 || status === 403 || status === 429) return { kind: 'not-sent' };
  const action = failurePolicy(err);
  if (action.kind !== 'final') return { kind: 'unanswered' };
  const message = `HTTP ${status}: ${action.message}`;
  if (
    status === 409 ||
    status === 422 ||
    err.apiCode === 'already_exists' ||
    err.field === identifyingField
  ) {
    return { kind: 'maybe-exists', message };
  }
  return { kind: 'refused', message };
}

/** The longest a product waits to be sent again after attempts that did not land. */
export const RESEND_MAX_MS = 3_600_000;

/**
 * When a product whose attempt got no answer, and did not land, is sent again (pure): at once
 * after its first attempt (a reset passes), then 30 s, 1 min, 2 min … up to an hour, so that one
 * product the portal keeps failing never holds up the others behind it.
 */
export function resendDelay(attempts: number): number {
  if (attempts <= 1) return 0;
  return Math.min(RESEND_MAX_MS, 30_000 * 2 ** (attempts - 2));
}
