import type { ProductsPage, ProductsPortal } from '../api/index.ts';
import { failurePolicy } from '../failures/failurePolicy.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import type { KvValue } from '../state/kvKeys.ts';
import { Catalogue } from '../state/products/catalogueStore.ts';
import { ProductRequests } from '../state/products/productRequests.ts';
import { StockFailures } from '../state/stock/stockFailures.ts';
import { catalogueReadDue } from './decide/reviewPlan.ts';
import { type NoticedDecision, recordStatuses, type StatusDeps } from './statuses.ts';

/** A long pass says how far it is every this many pages. */
const PROGRESS_EVERY_PAGES = 50;

export interface CatalogueReadDeps extends StatusDeps {
  readonly portal: ProductsPortal;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Whether the catalogue pass is due now, and when the next is (null: not until the daemon
 * deals in products: a products file, a product known, or stock that waits for a product).
 */
export function catalogueDue(db: StateDb, now: number): { due: boolean; at: number | null } {
  const kv = new KeyValueStore(db);
  const wanted = () =>
    !new Catalogue(db).isEmpty() ||
    new ProductRequests(db).any() ||
    new StockFailures(db).anyNotFound();
  const inProgress = kv.get('catalogue.read') !== undefined;
  return catalogueReadDue({
    inProgress,
    wanted: inProgress || wanted(),
    lastStartedAt: kv.get('catalogue.pass')?.startedAt ?? null,
    now,
  });
}

/** One page of the pass read and recorded. */
export interface CataloguePage {
  readonly rows: number;
  readonly decisions: readonly NoticedDecision[];
  /** Stock keys that waited for products this page showed, owed a push now. */
  readonly owed: number;
  /** The pass this page ended; null while it goes on. */
  readonly pass: KvValue<'catalogue.pass'> | null;
}

/**
 * Reads the next page of the catalogue pass (starting one when none is in progress): every
 * product of the portal's list with its statuses is recorded (recordStatuses: products the daemon
 * did not know make the stock that waited for them due; a created product's decision is noticed),
 * and the page position is saved, so that a pass cut short — by a push, a run of creations, a
 * spent budget, a restart — resumes where it stopped. A saved position the portal refuses (a
 * 4xx: an expired cursor) starts the pass again from the first page (`catalogue.cursor_refused`).
 */
export async function readCataloguePage(deps: CatalogueReadDeps): Promise<CataloguePage> {
  const kv = new KeyValueStore(deps.db);
  let read = kv.get('catalogue.read');
  if (read === undefined) {
    read = { startedAt: deps.clock.now(), cursor: null, pages: 0, rows: 0, appeared: 0 };
    kv.set('catalogue.read', read);
    deps.log.info({ event: 'catalogue.read_started' }, "reading the portal's product list");
  }
  let page: ProductsPage;
  try {
    page = await deps.portal.list({}, read.cursor, deps.signal);
  } catch (err) {
    const action = failurePolicy(err);
    if (read.cursor === null || action.kind !== 'final') throw err;
    deps.log.warn(
      {
        event: 'catalogue.cursor_refused',
        status: action.status,
        error: action.message,
        pagesDiscarded: read.pages,
      },
      `the portal refused the saved page position of its product list (HTTP ${action.status}): the pass starts again from the first page`,
    );
    read = { startedAt: deps.clock.now(), cursor: null, pages: 0, rows: 0, appeared: 0 };
    kv.set('catalogue.read', read);
    page = await deps.portal.list({}, null, deps.signal);
  }
  const seen = recordStatuses(page.items, deps);
  const next = {
    ...read,
    cursor: page.nextCursor,
    pages: read.pages + 1,
    rows: read.rows + page.items.length,
    appeared: read.appeared + seen.appeared,
  };
  const out = { rows: page.items.length, decisions: seen.decisions, owed: seen.owed };
  if (page.nextCursor !== null) {
    kv.set('catalogue.read', next);
    if (next.pages % PROGRESS_EVERY_PAGES === 0) {
      deps.log.info(
        { event: 'catalogue.read_progress', pages: next.pages, rows: next.rows },
        `product list: ${next.pages} pages read (${next.rows} products)`,
      );
    }
    return { ...out, pass: null };
  }
  const { cursor: _cursor, ...done } = next;
  const pass = { ...done, completedAt: deps.clock.now() };
  deps.db.transaction(() => {
    kv.set('catalogue.pass', pass);
    kv.delete('catalogue.read');
  })();
  deps.log.info(
    {
      event: 'catalogue.read',
      pages: pass.pages,
      rows: pass.rows,
      appeared: pass.appeared,
      ms: pass.completedAt - pass.startedAt,
    },
    `the portal's product list read: ${pass.rows} products in ${pass.pages} pages, ${pass.appeared} the daemon did not know`,
  );
  return { ...out, pass };
}
