import type { ProductDetail, ProductListItem } from '../api/index.ts';
import type { AppearedProduct } from '../domain/catalogue.ts';
import type { Clock } from '../domain/clock.ts';
import { declinedNotification } from '../domain/notification.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { enqueueNotification } from '../state/notify/notifyOutbox.ts';
import { Catalogue, type CatalogueEntry } from '../state/products/catalogueStore.ts';
import { ProductDecisions } from '../state/products/productDecisions.ts';
import { StockFailures } from '../state/stock/stockFailures.ts';
import { type Decision, decisionOf } from './decide/reviewPlan.ts';
import { type DeclinedEntry, declinedFileContent, declinedFileName } from './declinedOutbox.ts';

export interface StatusDeps {
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  /** The stock flow's operation: products that now exist (their stock that waited is due). */
  readonly appeared: (products: readonly AppearedProduct[]) => number;
}

/** A decision noticed in a read. */
export interface NoticedDecision {
  readonly sku: string;
  readonly decision: Decision;
  readonly reason: string | null;
}

export interface StatusesOutcome {
  readonly decisions: readonly NoticedDecision[];
  /** Products the daemon did not know before this read. */
  readonly appeared: number;
  /** Stock keys that waited for those and are owed a push now. */
  readonly owed: number;
  /** The declined-products file committed for the ERP (written by writeDeclinedFiles). */
  readonly file: string | null;
}

/**
 * What the portal said of some products (a page of its list, or one product), recorded in the
 * catalogue in one transaction with what it means: a product the daemon created whose platform
 * status turned `active` or `declined` is a decision, noticed once (product_decisions); the
 * declined ones get their notification and one `outbox/` file for the ERP, committed here and
 * written afterwards; a product the daemon did not know makes the stock that waited for it due.
 */
export function recordStatuses(
  products: ReadonlyArray<ProductListItem | ProductDetail>,
  deps: StatusDeps,
): StatusesOutcome {
  const now = deps.clock.now();
  const catalogue = new Catalogue(deps.db);
  const store = new ProductDecisions(deps.db);
  const outcome = deps.db.transaction(() => {
    const decisions: Array<NoticedDecision & { id: number; entry: CatalogueEntry }> = [];
    const appeared: AppearedProduct[] = [];
    for (const p of products) {
      const before = catalogue.get(p.sku);
      const reason = typeof p.declined_reason === 'string' ? p.declined_reason : null;
      catalogue.record(
        {
          sku: p.sku,
          platformSku: p.platform_sku,
          name: p.name,
          status: p.status,
          platformStatus: p.platform_status,
          declinedReason: reason,
        },
        now,
      );
      if (before === undefined) appeared.push({ sku: p.sku, platformSku: p.platform_sku });
      const decision = decisionOf(before, p.platform_status);
      if (decision === null) continue;
      const kept = decision === 'declined' ? reason : null;
      const id = store.record(p.sku, decision, kept, now);
      decisions.push({ id, sku: p.sku, decision, reason: kept, entry: catalogue.get(p.sku)! });
    }
    // Only those that stock waits for owe anything (the others' first sighting costs nothing).
    const waited = new StockFailures(deps.db).notFoundAmong(appeared.map((a) => a.sku));
    const owed = waited.size > 0 ? deps.appeared(appeared.filter((a) => waited.has(a.sku))) : 0;
    const declined = decisions.filter((d) => d.decision === 'declined');
    let file: string | null = null;
    if (declined.length > 0) {
      file = declinedFileName(now, declined[0]!.id);
      const entries: DeclinedEntry[] = declined.map((d) => ({
        product: d.entry,
        reason: d.reason,
        noticedAt: now,
      }));
      store.recordFile(
        {
          name: file,
          content: declinedFileContent(entries, now),
          products: declined.length,
          createdAt: now,
        },
        declined.map((d) => d.id),
      );
      for (const d of declined) {
        enqueueNotification(
          deps.db,
          declinedNotification(
            {
              sku: d.sku,
              platformSku: d.entry.platformSku,
              name: d.entry.name,
              reason: d.reason,
              createdBy: d.entry.createdBy,
              createdAt: d.entry.createdAt,
              outboxFile: file,
            },
            now,
          ),
        );
      }
    }
    return { decisions, appeared: appeared.length, owed, file };
  })();
  for (const d of outcome.decisions) logDecision(d, d.entry, outcome.file, deps.log);
  return {
    decisions: outcome.decisions.map(({ sku, decision, reason }) => ({ sku, decision, reason })),
    appeared: outcome.appeared,
    owed: outcome.owed,
    file: outcome.file,
  };
}

function logDecision(
  d: NoticedDecision,
  p: CatalogueEntry,
  file: string | null,
  log: Logger,
): void {
  const fields = { sku: d.sku, platformSku: p.platformSku, file: p.createdBy };
  if (d.decision === 'active') {
    log.info(
      { event: 'product.activated', ...fields },
      `product ${d.sku} activated by the platform's review`,
    );
    return;
  }
  log.warn(
    { event: 'product.declined', ...fields, reason: d.reason, outboxFile: file },
    `product ${d.sku} declined by the platform's review: ${d.reason ?? 'no reason given'}`,
  );
}
