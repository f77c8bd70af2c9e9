import { failurePolicy } from '../failures/failurePolicy.ts';
import { type CatalogueReadDeps, catalogueDue, readCataloguePage } from './catalogueRead.ts';
import { type DeclinedOutboxDeps, writeDeclinedFiles } from './declinedOutbox.ts';
import { lookAtReview, type ReviewDeps, reviewDueAt } from './review.ts';

export type FollowDeps = ReviewDeps & CatalogueReadDeps & DeclinedOutboxDeps;

/**
 * How long one follow-up reads before it ends and asks for the next (which looks at the review
 * again when due): a long catalogue pass never holds the review up for longer.
 */
export const FOLLOW_SLICE_MS = 30_000;

/** What the queues around a follow-up tell it, asked between pages. */
export interface FollowHooks {
  /** True while a push runs or waits to run: the catalogue pass stops between pages for it. */
  readonly pushDue: () => Promise<boolean>;
  /** True while product creations are due: they go first. */
  readonly creationsDue: () => boolean;
  /** Stock that waited for products now known is owed a push: asked for at once. */
  readonly pushOwed: () => Promise<unknown>;
}

/** What one follow-up did, and what it asks of the queues. */
export interface FollowOutcome {
  /** Looks at the platform's review, and decisions they noticed. */
  readonly looks: number;
  readonly decisions: number;
  /** Pages of the catalogue pass read. */
  readonly pages: number;
  /** Stock keys that waited for products now known, owed a push (asked for as they were found). */
  readonly owed: number;
  /** Declined-products files put in `outbox/`. */
  readonly files: readonly string[];
  /**
   * Why it ended: nothing more due now (`idle`), a push or creations go first, its slice of time
   * is over (`slice`: another follow-up is owed), the products lane's share of the budget is
   * spent (`budget`: the periodic recovery sets it going again), or shutdown.
   */
  readonly stopped: 'idle' | 'push' | 'creations' | 'slice' | 'budget' | 'aborted';
  /** When the review or the catalogue pass is next due (epoch ms); null: not until asked. */
  readonly nextAt: number | null;
  /**
   * How long from now the review is next due (ms), for a wake-up at that time; null while no
   * created product is undecided (the catalogue pass, due once in many hours, is asked for by
   * the periodic recovery).
   */
  readonly wakeInMs: number | null;
}

/**
 * The products' follow-up, after creations: looks at the platform's review when due (every
 * CATALOGUE_REVIEW_INTERVAL_MS while a created product is undecided), puts the declined-products
 * files it committed in `outbox/`, and reads the catalogue pass page by page while it is due,
 * stopping between pages for a push or for creations. Reads go on while pushes are paused: they
 * write nothing to the portal.
 */
export async function followProducts(deps: FollowDeps, hooks: FollowHooks): Promise<FollowOutcome> {
  const out = { looks: 0, decisions: 0, pages: 0, owed: 0, files: [] as string[] };
  const end = (
    stopped: FollowOutcome['stopped'],
    nextAt: number | null = null,
    reviewAt: number | null = null,
  ): FollowOutcome => ({
    ...out,
    stopped,
    nextAt,
    wakeInMs: reviewAt === null ? null : Math.max(0, reviewAt - deps.clock.now()),
  });
  try {
    out.files.push(...(await writeDeclinedFiles(deps)));
    const started = deps.clock.now();
    let looked = false;
    for (;;) {
      if (deps.signal?.aborted) return end('aborted');
      const now = deps.clock.now();
      if (now - started >= FOLLOW_SLICE_MS) return end('slice');
      const reviewAt = reviewDueAt(deps.db, deps.intervalMs);
      if (!looked && reviewAt !== null && reviewAt <= now) {
        const look = await lookAtReview(deps);
        looked = true;
        out.looks++;
        out.decisions += look.decisions.length;
        out.owed += look.owed;
        if (look.owed > 0) await hooks.pushOwed();
        out.files.push(...(await writeDeclinedFiles(deps)));
        continue;
      }
      const pass = catalogueDue(deps.db, now);
      if (!pass.due) {
        const next = [reviewAt, pass.at].filter((t): t is number => t !== null && t > now);
        return end('idle', next.length === 0 ? null : Math.min(...next), reviewAt);
      }
      if (hooks.creationsDue()) return end('creations');
      if (await hooks.pushDue()) return end('push');
      const page = await readCataloguePage(deps);
      out.pages++;
      out.decisions += page.decisions.length;
      out.owed += page.owed;
      if (page.owed > 0) await hooks.pushOwed();
      if (page.decisions.some((d) => d.decision === 'declined')) {
        out.files.push(...(await writeDeclinedFiles(deps)));
      }
    }
  } catch (err) {
    if (deps.signal?.aborted) return end('aborted');
    const action = failurePolicy(err);
    if (action.kind !== 'wait' || action.holds !== 'budget') throw err;
    deps.log.debug(
      { event: 'catalogue.budget_wait', freesAt: new Date(action.until).toISOString() },
      "the products lane's share of the budget is spent; the follow-up goes on when calls free",
    );
    return end('budget', action.until);
  }
}
