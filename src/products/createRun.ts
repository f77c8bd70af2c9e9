import type { ProductCreated, ProductDetail } from '../api/index.ts';
import { type AppearedProduct, brandKey } from '../domain/catalogue.ts';
import {
  type CompiledStockRules,
  compileStockRules,
  type StockRuleSet,
} from '../domain/stockRules.ts';
import { Catalogue, type ProductFacts } from '../state/products/catalogueStore.ts';
import { type ProductRequest, ProductRequests } from '../state/products/productRequests.ts';
import { readReferenceData } from '../state/products/referenceTables.ts';
import { offeredOfSku } from '../state/stock/desiredStock.ts';
import { type BrandDeps, ensureBrand, resolveUnansweredBrands } from './brandEnsure.ts';
import { creationBody } from './decide/birthStock.ts';
import { createVerdict, resendDelay } from './decide/createAnswer.ts';

/** Requests read from state.db at a time. */
const BATCH = 20;

export interface RunDeps extends BrandDeps {
  /** The stock rules in force: the stock a product is born with is offered as they say. */
  readonly stockRules: () => StockRuleSet;
  /** The stock flow's operation: products that now exist (their stock that waited is due). */
  readonly appeared: (products: readonly AppearedProduct[]) => number;
  /** True while writes to the portal are paused (`pause`). */
  readonly paused: () => boolean;
  /** Test seam: runs right after a creation was answered, before the answer is recorded. */
  readonly hooks?: { readonly afterCall?: (sku: string) => void };
}

export interface RunOutcome {
  created: number;
  existing: number;
  failed: number;
  brandsCreated: number;
  /** Keys owed a push now: stock that waited for these products (ask for a push). */
  owed: number;
  /** Ledger ids of the files whose requests changed (their reports are brought up to date). */
  readonly files: Set<number>;
  /** Requests still due: another run should follow. */
  more: boolean;
}

export function emptyRun(): RunOutcome {
  return {
    created: 0,
    existing: 0,
    failed: 0,
    brandsCreated: 0,
    owed: 0,
    files: new Set(),
    more: false,
  };
}

/**
 * One run of creations, at most about `sliceMs` long (the stock that waited is pushed at its
 * end, so within seconds of its product): first every attempt that got no answer recorded is
 * resolved by asking the portal (brands by their list, products by their SKU), then the due
 * requests are created in order, each once — its brand first when the portal lacks it, its
 * intent recorded before the call. Throws what the job must wait for or retry; every creation
 * answered before that is recorded, and counted in `out`.
 */
export async function runCreations(
  deps: RunDeps,
  sliceMs: number,
  out: RunOutcome = emptyRun(),
): Promise<RunOutcome> {
  const requests = new ProductRequests(deps.db);
  if (deps.paused()) return out;
  const started = deps.clock.now();
  await resolveUnansweredBrands(deps);
  for (const r of requests.unanswered()) await resolveUnanswered(r, deps, out);
  const active = new Set(
    readReferenceData(deps.db)
      .centres.filter((c) => c.active)
      .map((c) => c.code),
  );
  const run = { rules: compileStockRules(deps.stockRules().rules), active, refusals: new Map() };
  for (;;) {
    const batch = requests.due(deps.clock.now(), BATCH);
    if (batch.length === 0) return out;
    for (const r of batch) {
      if (deps.signal?.aborted || deps.paused() || deps.clock.now() - started >= sliceMs) {
        out.more = true;
        return out;
      }
      await createOne(r, deps, run, out);
    }
  }
}

interface RunState {
  readonly rules: CompiledStockRules;
  readonly active: ReadonlySet<string>;
  /** Brands refused for good in this run, by key: their products fail without another call. */
  readonly refusals: Map<string, string>;
}

async function createOne(
  r: ProductRequest,
  deps: RunDeps,
  run: RunState,
  out: RunOutcome,
): Promise<void> {
  const requests = new ProductRequests(deps.db);
  out.files.add(r.fileId);
  if (new Catalogue(deps.db).knows(r.sku)) {
    requests.settle(r.id, { state: 'existing' }, deps.clock.now());
    out.existing++;
    logExisting(deps, r, 'the portal is known to have it');
    return;
  }
  if (r.brand !== null) {
    const key = brandKey(r.brand);
    if (!run.refusals.has(key)) {
      const brand = await ensureBrand(r.brand, deps);
      if (!brand.ok) run.refusals.set(key, brand.error);
      else if (brand.created) out.brandsCreated++;
    }
    const refused = run.refusals.get(key);
    if (refused !== undefined) return fail(r, refused, deps, out);
  }
  const body = creationBody(
    r.draft,
    r.birthStock,
    offeredOfSku(deps.db, r.sku, run.active),
    run.rules,
    run.active,
  );
  requests.markSending(r.id, deps.clock.now());
  let answer: ProductCreated;
  try {
    answer = await deps.portal.create(body, deps.signal);
  } catch (err) {
    const verdict = createVerdict(err, 'sku');
    if (verdict.kind === 'unanswered') {
      deps.log.warn(
        { event: 'product.create_unanswered', sku: r.sku, file: r.fileName, line: r.line },
        `no answer to the creation of ${r.sku}: the portal is asked for it before anything is sent again`,
      );
      throw err;
    }
    if (verdict.kind === 'not-sent') {
      requests.unsend(r.id, deps.clock.now());
      throw err;
    }
    if (verdict.kind === 'refused') return fail(r, verdict.message, deps, out);
    // Refused as (perhaps) existing: the portal says whether it has the SKU. Not applied, so
    // back in line first: a read that fails leaves it to be sent again, never taken for ours.
    requests.requeue(r.id, deps.clock.now());
    const found = await deps.portal.find(r.sku, deps.signal);
    if (found?.sku !== r.sku) return fail(r, verdict.message, deps, out);
    record(r, found, 'existing', deps, out);
    return;
  }
  deps.hooks?.afterCall?.(r.sku);
  record(r, answer, 'created', deps, out);
}

/**
 * What the portal has of a request, recorded with its catalogue entry and the stock it answered
 * (the stock that waited for it due now): `created`, the daemon's (answered created, or found
 * after an unanswered attempt), or `existing` (another's, or created before the daemon knew it).
 */
function record(
  r: ProductRequest,
  product: ProductCreated | ProductDetail,
  state: 'created' | 'existing',
  deps: RunDeps,
  out: RunOutcome,
): void {
  const now = deps.clock.now();
  const creation = { at: r.sentAt ?? now, fileId: r.fileId, fileName: r.fileName };
  deps.db.transaction(() => {
    new ProductRequests(deps.db).settle(r.id, { state, platformSku: product.platform_sku }, now);
    new Catalogue(deps.db).record(
      factsOf(product),
      now,
      state === 'created' ? creation : undefined,
    );
    out.owed += deps.appeared([appearedOf(product)]);
  })();
  out.files.add(r.fileId);
  if (state === 'existing') {
    out.existing++;
    logExisting(deps, r, 'the portal refused it as one it has');
    return;
  }
  out.created++;
  deps.log.info(
    {
      event: 'product.created',
      sku: r.sku,
      platformSku: product.platform_sku,
      file: r.fileName,
      line: r.line,
      shortDescription: r.shortDescription,
    },
    `product ${r.sku} created on the portal (${product.platform_sku})`,
  );
}

/**
 * Attempts that got no answer recorded: the portal says whether each landed (then it is the
 * daemon's, recorded as created) or not (then it is sent again).
 */
async function resolveUnanswered(r: ProductRequest, deps: RunDeps, out: RunOutcome) {
  const answer = await deps.portal.find(r.sku, deps.signal);
  // The path takes a SKU or a platform SKU: only the product of this SKU is the one sent.
  const found = answer?.sku === r.sku ? answer : null;
  deps.log.info(
    { event: 'product.resolved', sku: r.sku, file: r.fileName, landed: found !== null },
    `${r.sku}: its unanswered creation ${found === null ? 'did not land: it is sent again' : 'landed'}`,
  );
  out.files.add(r.fileId);
  if (found === null) {
    new ProductRequests(deps.db).requeue(r.id, deps.clock.now() + resendDelay(r.attempts));
  } else record(r, found, 'created', deps, out);
}

function fail(r: ProductRequest, error: string, deps: RunDeps, out: RunOutcome): void {
  new ProductRequests(deps.db).settle(r.id, { state: 'failed', error }, deps.clock.now());
  out.failed++;
  deps.log.warn(
    { event: 'product.create_failed', sku: r.sku, file: r.fileName, line: r.line, error },
    `product ${r.sku} (${r.fileName} line ${r.line}) not created: ${error}`,
  );
}

function logExisting(deps: RunDeps, r: ProductRequest, why: string): void {
  deps.log.info(
    { event: 'product.exists', sku: r.sku, file: r.fileName, line: r.line, why },
    `product ${r.sku} not created: ${why}`,
  );
}

function factsOf(p: ProductCreated | ProductDetail): ProductFacts {
  return {
    sku: p.sku,
    platformSku: p.platform_sku,
    name: p.name,
    status: p.status,
    platformStatus: p.platform_status,
    declinedReason: typeof p.declined_reason === 'string' ? p.declined_reason : null,
  };
}

function appearedOf(p: ProductCreated | ProductDetail): AppearedProduct {
  return {
    sku: p.sku,
    platformSku: p.platform_sku,
    stock: {
      factory: p.factory_stock?.stock_quantity ?? null,
      dcs: p.distribution_centre_stock.map((d) => ({
        dc: d.distribution_centre_code,
        quantity: d.stock_quantity,
      })),
    },
  };
}
