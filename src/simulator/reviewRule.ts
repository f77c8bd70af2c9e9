/**
 * The platform's review of a new product, as the simulator plays it: a pure rule over what the
 * supplier sent. The spec says a description needs at least 100 characters before the platform's
 * marketing team can enrich it; the simulator declines a product whose description is shorter and
 * activates the rest. The same description always gets the same outcome.
 */
import type { PlatformStatus, ProductStatus } from './model.ts';

/** Characters a description needs before the platform's marketing team can enrich it. */
export const MIN_ENRICHABLE_DESCRIPTION = 100;

export type ReviewDecision = 'active' | 'declined';
export const REVIEW_DECISIONS: readonly ReviewDecision[] = ['active', 'declined'];

/** The three fields a review sets on a product. */
export interface ReviewOutcome {
  readonly status: ProductStatus;
  readonly platformStatus: PlatformStatus;
  readonly declinedReason: string | null;
}

/** A product as created, before its review: the spec's `pending` / `inactive`. */
export const AWAITING_REVIEW: ReviewOutcome = Object.freeze({
  status: 'pending',
  platformStatus: 'inactive',
  declinedReason: null,
});

/** The reason given when an admin declines a product without saying why. */
export const DEFAULT_DECLINED_REASON = "Declined by the platform's review.";

/** Length of a description as the review counts it: characters (code points), ends trimmed. */
export function descriptionLength(description: string): number {
  let n = 0;
  for (const _ of description.trim()) n++;
  return n;
}

/** The rule: a description under 100 characters is declined, saying so; the rest are activated. */
export function reviewByRule(description: string): {
  decision: ReviewDecision;
  reason: string | null;
} {
  const length = descriptionLength(description);
  if (length >= MIN_ENRICHABLE_DESCRIPTION) return { decision: 'active', reason: null };
  return {
    decision: 'declined',
    reason:
      `The description has ${length} characters; at least ${MIN_ENRICHABLE_DESCRIPTION} are ` +
      "required before the platform's marketing team can enrich it.",
  };
}

/**
 * The fields a decision sets: activated → status `active`, platform_status `active`; declined →
 * status `inactive` (the review is over and the product is not on sale), platform_status
 * `declined` with its reason.
 */
export function outcomeOf(decision: ReviewDecision, reason: string | null): ReviewOutcome {
  if (decision === 'active') {
    return { status: 'active', platformStatus: 'active', declinedReason: null };
  }
  return {
    status: 'inactive',
    platformStatus: 'declined',
    declinedReason: reason ?? DEFAULT_DECLINED_REASON,
  };
}
