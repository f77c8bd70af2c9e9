import type { ProductsPortal } from '../api/index.ts';
import { BRAND_LIST_FRESH_MS } from '../domain/catalogue.ts';
import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { BrandCache } from '../state/products/brandCache.ts';
import { refreshedAt } from '../state/products/referenceTables.ts';
import { createVerdict } from './decide/createAnswer.ts';

export interface BrandDeps {
  readonly db: StateDb;
  readonly portal: ProductsPortal;
  readonly clock: Clock;
  readonly log: Logger;
  readonly signal?: AbortSignal;
}

export type BrandOutcome =
  | { readonly ok: true; readonly created: boolean }
  | { readonly ok: false; readonly error: string };

/** Reads the portal's brand list into state.db (one call). */
export async function readBrands(deps: BrandDeps): Promise<void> {
  const list = await deps.portal.brands(deps.signal);
  new BrandCache(deps.db).storeList(list, deps.clock.now());
}

/**
 * Brands whose creation went without its answer recorded (a crash, a reset): the portal's list
 * says whether they landed; those it lacks are sent again when a product needs them.
 */
export async function resolveUnansweredBrands(deps: BrandDeps): Promise<void> {
  const names = new BrandCache(deps.db).unanswered();
  if (names.length === 0) return;
  await readBrands(deps);
  const cache = new BrandCache(deps.db);
  for (const name of names) {
    deps.log.info(
      { event: 'brand.resolved', name, landed: cache.knows(name) },
      `brand "${name}": its unanswered creation ${cache.knows(name) ? 'landed' : 'did not land'}`,
    );
  }
}

/**
 * Makes sure the portal has a brand of this name (compared as the portal does: trimmed, any
 * case), creating it once: the intent is recorded before POST /brands, so a call that got no
 * answer is resolved from the portal's list, never by sending again blind. Throws for what may
 * pass (the job comes back); a refusal for good is returned.
 */
export async function ensureBrand(name: string, deps: BrandDeps): Promise<BrandOutcome> {
  const cache = new BrandCache(deps.db);
  if (cache.knows(name)) return { ok: true, created: false };
  const listed = refreshedAt(deps.db, 'brands');
  if (listed === null || deps.clock.now() - listed >= BRAND_LIST_FRESH_MS) {
    await readBrands(deps);
    if (cache.knows(name)) return { ok: true, created: false };
  }
  cache.markSending(name, deps.clock.now());
  try {
    const created = await deps.portal.createBrand(name.trim(), deps.signal);
    cache.markCreated(name, created.brand_id, deps.clock.now());
    deps.log.info(
      { event: 'brand.created', name: name.trim(), brandId: created.brand_id },
      `brand "${name.trim()}" created on the portal`,
    );
    return { ok: true, created: true };
  } catch (err) {
    const verdict = createVerdict(err, 'name');
    if (verdict.kind === 'unanswered') throw err;
    cache.forget(name);
    if (verdict.kind === 'not-sent') throw err;
    if (verdict.kind === 'maybe-exists') {
      await readBrands(deps);
      if (cache.knows(name)) return { ok: true, created: false };
    }
    deps.log.warn(
      { event: 'brand.create_failed', name: name.trim(), error: verdict.message },
      `brand "${name.trim()}" could not be created: ${verdict.message}`,
    );
    return { ok: false, error: `brand "${name.trim()}" could not be created: ${verdict.message}` };
  }
}
