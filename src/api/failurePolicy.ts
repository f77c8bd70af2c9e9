import { BulkIncompleteError, isPortalError } from './portalErrors.ts';

/**
 * What to do about a failed portal call, decided once for every caller (the push, the
 * confirmations, the job workers), so that no caller compares error codes of its own:
 *
 * - `final`: the portal refused this item or confirmation for good: store it with the portal's
 *   message and show it in `failures` (retried only with the long item back-off or by an operator);
 * - `retry`: may pass (5xx, reset, timeout, 429 after the call's own retries): try again later,
 *   not before `notBefore` when the portal named a time;
 * - `wait`: nothing is wrong with this work, but no call can go before `until` (the call budget is
 *   spent, the login cap or the re-login spacing holds the next login);
 * - `fix-config`: no call will pass until a person acts (the portal refused the credentials, or
 *   answered 403 "insufficient permissions"): stop the lane, say so loudly, keep the work pending.
 */
export type FailureAction =
  | {
      readonly kind: 'final';
      /** The portal's own words (its error message, or a short excerpt of the page it sent). */
      readonly message: string;
      readonly status: number | undefined;
    }
  | {
      readonly kind: 'retry';
      /** Epoch ms the portal asked us to wait for (Retry-After); undefined: our own back-off. */
      readonly notBefore: number | undefined;
      /** The request may have been applied although no usable answer came back. */
      readonly outcomeUnknown: boolean;
    }
  | { readonly kind: 'wait'; readonly until: number; readonly reason: string }
  | { readonly kind: 'fix-config'; readonly reason: string };

/**
 * The policy. 403 is `fix-config`, not `final`: the spec names it "insufficient permissions", a
 * property of the account, not of the item, so failing items for it would burn every pending key
 * into `failures` while nothing is wrong with them. Errors that are not the portal's (a bug, a
 * disk error) are `retry`: the job's own attempts and the periodic recovery take them again.
 */
export function failurePolicy(err: unknown): FailureAction {
  if (err instanceof BulkIncompleteError) return failurePolicy(err.cause);
  if (!isPortalError(err)) return { kind: 'retry', notBefore: undefined, outcomeUnknown: true };
  switch (err.code) {
    case 'E_BUDGET':
    case 'E_LOGIN_WAIT':
    case 'E_TOKEN_REFUSED':
      return { kind: 'wait', until: err.retryAt ?? 0, reason: err.message };
    case 'E_LOGIN_REJECTED':
    case 'E_LOGIN_BLOCKED':
      return { kind: 'fix-config', reason: err.message };
    case 'E_HTTP': {
      const status = err.status ?? 0;
      if (status === 403) {
        return {
          kind: 'fix-config',
          reason: `the portal answered 403 (insufficient permissions): ${portalWords(err)}`,
        };
      }
      if (err.retryable || status < 400 || status >= 500 || status === 401 || status === 429) {
        return { kind: 'retry', notBefore: err.retryAt, outcomeUnknown: err.outcomeUnknown };
      }
      return { kind: 'final', message: portalWords(err), status };
    }
    default:
      // E_RATE_LIMITED, E_NETWORK, E_TIMEOUT, E_BAD_RESPONSE, E_CLOSED
      return { kind: 'retry', notBefore: err.retryAt, outcomeUnknown: err.outcomeUnknown };
  }
}

/** What the portal said: its error message, else the excerpt of its page, else our message. */
function portalWords(err: { apiMessage?: string; excerpt?: string; message: string }): string {
  return err.apiMessage ?? err.excerpt ?? err.message;
}
