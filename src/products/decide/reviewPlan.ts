/**
 * The platform's review of the products the daemon created, and the catalogue kept fresh: pure
 * decisions (when to look, how, what a status read means), plain data in and out.
 */

/** Products a page of GET /products holds (the spec's page size). */
export const PRODUCTS_PAGE = 100;

/**
 * How often the portal's whole product list is read (the catalogue pass): a pass starts this
 * long after the last one started, so that even one the budget stretches over hours ends within
 * a day of the last.
 */
export const CATALOGUE_READ_EVERY_MS = 20 * 3_600_000;

/** The platform statuses that end a review. */
export const DECIDED_STATUSES = ['active', 'declined'] as const;
export type Decision = (typeof DECIDED_STATUSES)[number];

/** Whether a platform status ends the review (the product is activated or declined). */
export function isDecided(platformStatus: string | null | undefined): platformStatus is Decision {
  return platformStatus === 'active' || platformStatus === 'declined';
}

/**
 * What a read of a product's statuses means: a decision noticed when the daemon created it and
 * its platform status turned to `active` or `declined` (once: the same status read again is no
 * new decision); null otherwise.
 */
export function decisionOf(
  before: { readonly createdByDaemon: boolean; readonly platformStatus: string | null } | undefined,
  platformStatus: string | null | undefined,
): Decision | null {
  if (before === undefined || !before.createdByDaemon) return null;
  if (!isDecided(platformStatus) || platformStatus === before.platformStatus) return null;
  return platformStatus;
}

/**
 * When the review is next looked at: an interval after the last look, or after the oldest
 * undecided product was created when that is later (no decision comes before its creation), so
 * that a decision is noticed within the interval. Null while no created product is undecided.
 */
export function nextReviewAt(input: {
  readonly lastLookAt: number | null;
  readonly oldestUndecidedAt: number | null;
  readonly intervalMs: number;
}): number | null {
  if (input.oldestUndecidedAt === null) return null;
  return Math.max(input.lastLookAt ?? 0, input.oldestUndecidedAt) + input.intervalMs;
}

/** Pages of the two filtered lists a look at the review reads. */
export interface ListPages {
  readonly declined: number;
  readonly active: number;
}

/**
 * The pages the filtered lists are expected to take: what they took the last time they were
 * read whole, or what the products known with that status fill (100 a page), whichever is more;
 * at least one each.
 */
export function expectedListPages(
  last: ListPages | undefined,
  known: { readonly declined: number; readonly active: number },
): ListPages {
  const pages = (n: number) => Math.max(1, Math.ceil(n / PRODUCTS_PAGE));
  return {
    declined: Math.max(last?.declined ?? 1, pages(known.declined)),
    active: Math.max(last?.active ?? 1, pages(known.active)),
  };
}

/**
 * How to look at the review: the portal's lists filtered by platform status (`declined`, then
 * `active`: one call a page, whatever the number of products under review), or each undecided
 * product by its SKU (one call each) when that costs fewer calls — a large catalogue's active
 * list is many pages.
 */
export function reviewMethod(undecided: number, pages: ListPages): 'lists' | 'each' {
  return undecided < pages.declined + pages.active ? 'each' : 'lists';
}

/**
 * Whether the catalogue pass is due: one in progress goes on; otherwise one starts once the
 * daemon deals in products at all (`wanted`: a products file was read, the catalogue holds
 * products, or stock waits for a product the portal lacks) and the last pass started
 * CATALOGUE_READ_EVERY_MS ago, or never. `at`: when the next is due (null: not until wanted).
 */
export function catalogueReadDue(input: {
  readonly inProgress: boolean;
  readonly wanted: boolean;
  readonly lastStartedAt: number | null;
  readonly now: number;
}): { readonly due: boolean; readonly at: number | null } {
  if (input.inProgress) return { due: true, at: input.now };
  if (!input.wanted) return { due: false, at: null };
  const at =
    input.lastStartedAt === null ? input.now : input.lastStartedAt + CATALOGUE_READ_EVERY_MS;
  return { due: at <= input.now, at };
}
