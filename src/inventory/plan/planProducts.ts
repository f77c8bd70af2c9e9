import {
  BRAND_LIST_FRESH_MS,
  brandKey,
  catalogueReferences,
  REFERENCES_MAX_AGE_MS,
} from '../../domain/catalogue.ts';
import type { StateDb } from '../../state/db.ts';
import { BrandCache } from '../../state/products/brandCache.ts';
import { Catalogue } from '../../state/products/catalogueStore.ts';
import { readReferenceData, refreshedAt } from '../../state/products/referenceTables.ts';
import type { ProductReading, ProductsRead } from '../ingest/productHandler.ts';
import { MAX_PRODUCTS_LISTED } from '../ingest/productsSection.ts';

/** What `plan` says of a products file (docs/products.md). */
export interface ProductsPlan {
  /** Products the portal is not known to have: each a creation. */
  readonly create: number;
  /** Accepted rows whose SKU the portal is known to have: never sent. */
  readonly existing: number;
  /** Of those to create, descriptions under 100 characters (the platform cannot enrich them). */
  readonly shortDescription: number;
  /**
   * Brands the rows name that the portal is not known to have: each created first, once — at
   * most (the portal's list, read first, may show some).
   */
  readonly brandsToCreate: readonly string[];
  /**
   * Calls it takes: one per creation and per new brand, and the reads that go first (the
   * portal's reference data when older than a day, its brand list when a brand is not known).
   * A product the portal turns out to have already costs one more read.
   */
  readonly calls: {
    readonly creations: number;
    readonly brands: number;
    readonly reads: number;
    readonly total: number;
  };
  /** Whether CATALOGUE_MAX_NEW would hold it (null: no threshold given), and why. */
  readonly held: boolean | null;
  readonly reason: string | null;
  readonly CATALOGUE_MAX_NEW: number | null;
  /** Whether sites, tax rates and centres were checked (only when state.db keeps them). */
  readonly referencesChecked: boolean;
  /** The first products it would create, in file order, and the first it names that exist. */
  readonly toCreate: ReadonlyArray<{
    readonly line: number;
    readonly sku: string;
    readonly name: string;
    readonly brand: string | null;
  }>;
  readonly existingSkus: readonly string[];
}

/** Whether state.db has the products tables (a state.db of an older version has not). */
function hasProductTables(db: StateDb): boolean {
  return (
    db
      .prepare<[], { n: number }>(
        `SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'catalogue_refreshes'`,
      )
      .get()?.n === 1
  );
}

/**
 * How a dry run reads a products file: against the reference data and catalogue state.db keeps
 * (read-only); without them, codes are not checked and no product is known.
 */
export function planReading(db: StateDb | undefined, imageType: string): ProductReading {
  const tables = db !== undefined && hasProductTables(db);
  const catalogue = tables ? new Catalogue(db) : undefined;
  return {
    imageType,
    references: async () =>
      tables && refreshedAt(db, 'references') !== null
        ? catalogueReferences(readReferenceData(db))
        : undefined,
    exists: (sku) => catalogue?.knows(sku) ?? false,
  };
}

export function planProducts(
  db: StateDb | undefined,
  read: ProductsRead,
  now: number,
  maxNew: number | undefined,
): ProductsPlan {
  const tables = db !== undefined && hasProductTables(db);
  const brands = tables ? new BrandCache(db) : undefined;
  const unknownBrands = new Map<string, string>();
  for (const r of read.toCreate) {
    const brand = r.draft.brand;
    if (brand !== undefined && !brands?.knows(brand)) unknownBrands.set(brandKey(brand), brand);
  }
  const stale = (list: 'references' | 'brands', maxAge: number) => {
    const at = tables ? refreshedAt(db, list) : null;
    return at === null || now - at >= maxAge;
  };
  const creations = read.toCreate.length;
  const reads =
    (creations > 0 && stale('references', REFERENCES_MAX_AGE_MS) ? 3 : 0) +
    (unknownBrands.size > 0 && stale('brands', BRAND_LIST_FRESH_MS) ? 1 : 0);
  const held = maxNew === undefined ? null : creations > maxNew;
  return {
    create: creations,
    existing: read.existing,
    shortDescription: read.shortDescription,
    brandsToCreate: [...unknownBrands.values()],
    calls: {
      creations,
      brands: unknownBrands.size,
      reads,
      total: creations + unknownBrands.size + reads,
    },
    held,
    reason:
      held === null
        ? null
        : held
          ? `it would create ${creations} products, more than CATALOGUE_MAX_NEW (${maxNew})`
          : `it would create ${creations} products, within CATALOGUE_MAX_NEW (${maxNew})`,
    CATALOGUE_MAX_NEW: maxNew ?? null,
    referencesChecked: read.referencesChecked,
    toCreate: read.toCreate.slice(0, MAX_PRODUCTS_LISTED).map((r) => ({
      line: r.line,
      sku: r.draft.sku,
      name: r.draft.name,
      brand: r.draft.brand ?? null,
    })),
    existingSkus: read.existingSkus,
  };
}
