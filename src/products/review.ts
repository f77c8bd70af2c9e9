import type { ProductsPortal } from '../api/index.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { Catalogue } from '../state/products/catalogueStore.ts';
import {
  expectedListPages,
  type ListPages,
  nextReviewAt,
  reviewMethod,
} from './decide/reviewPlan.ts';
import { type NoticedDecision, recordStatuses, type StatusDeps } from './statuses.ts';

export interface ReviewDeps extends StatusDeps {
  readonly portal: ProductsPortal;
  readonly signal?: AbortSignal | undefined;
  /** CATALOGUE_REVIEW_INTERVAL_MS. */
  readonly intervalMs: number;
}

/** One look at the platform's review. */
export interface ReviewLook {
  readonly how: 'lists' | 'each';
  readonly calls: number;
  readonly undecided: number;
  readonly decisions: readonly NoticedDecision[];
  /** Stock keys owed a push (products the lists showed that the daemon did not know). */
  readonly owed: number;
}

/** When the review is next looked at (epoch ms); null while no created product is undecided. */
export function reviewDueAt(db: StateDb, intervalMs: number): number | null {
  return nextReviewAt({
    lastLookAt: new KeyValueStore(db).get('catalogue.review')?.at ?? null,
    oldestUndecidedAt: new Catalogue(db).oldestUndecidedAt(),
    intervalMs,
  });
}

/**
 * Looks at the review of the products the daemon created and the platform has not decided yet,
 * in the cheaper of two ways: the portal's lists filtered by platform status (`declined`, then
 * `active`), read until every undecided product is found or the lists end — every product they
 * show is recorded, so they refresh the catalogue too; or one GET per undecided product, when
 * that takes fewer calls than the lists' pages. Every status read is recorded as it comes
 * (recordStatuses: a decision is noticed once). Throws what the job must wait for (a spent
 * budget): the look is then made again, whole, at the next run.
 */
export async function lookAtReview(deps: ReviewDeps): Promise<ReviewLook> {
  const kv = new KeyValueStore(deps.db);
  const catalogue = new Catalogue(deps.db);
  const startedAt = deps.clock.now();
  const undecided = catalogue.undecided();
  const last = kv.get('catalogue.review');
  const known = catalogue.countByPlatformStatus();
  const expected = expectedListPages(last?.listPages, {
    declined: known.declined ?? 0,
    active: known.active ?? 0,
  });
  const how = reviewMethod(undecided.length, expected);
  const decisions: NoticedDecision[] = [];
  let owed = 0;
  let calls = 0;
  let listPages: ListPages | undefined = last?.listPages;
  if (how === 'each') {
    for (const p of undecided) {
      const found = await deps.portal.find(p.sku, deps.signal);
      calls++;
      if (found?.sku !== p.sku) continue;
      const seen = recordStatuses([found], deps);
      decisions.push(...seen.decisions);
    }
  } else {
    const wanted = new Set(undecided.map((p) => p.sku));
    const pages = { declined: 0, active: 0 };
    const whole = { declined: false, active: false };
    for (const status of ['declined', 'active'] as const) {
      let cursor: string | null = null;
      do {
        const page = await deps.portal.list({ platformStatus: status }, cursor, deps.signal);
        calls++;
        pages[status]++;
        const seen = recordStatuses(page.items, deps);
        decisions.push(...seen.decisions);
        owed += seen.owed;
        for (const item of page.items) wanted.delete(item.sku);
        cursor = page.nextCursor;
        whole[status] = cursor === null;
      } while (cursor !== null && wanted.size > 0);
    }
    // A list read to its end says how many pages it takes; one cut short says at least that.
    listPages = {
      declined: whole.declined ? pages.declined : Math.max(pages.declined, expected.declined),
      active: whole.active ? pages.active : Math.max(pages.active, expected.active),
    };
  }
  kv.set('catalogue.review', {
    at: startedAt,
    how,
    calls,
    ...(listPages === undefined ? {} : { listPages }),
  });
  deps.log.info(
    {
      event: 'catalogue.reviewed',
      how,
      calls,
      undecided: undecided.length,
      activated: decisions.filter((d) => d.decision === 'active').length,
      declined: decisions.filter((d) => d.decision === 'declined').length,
    },
    `review of ${undecided.length} product(s) looked at in ${calls} call(s) (${how === 'lists' ? 'the lists by platform status' : 'each product'}): ${decisions.length} decided`,
  );
  return { how, calls, undecided: undecided.length, decisions, owed };
}
