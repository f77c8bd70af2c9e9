/**
 * What the report of a products file says beyond the usual fields (docs/products.md): `created`,
 * `existing` and `shortDescription`, and a `products` section with each product's outcome, kept
 * up to date as the portal answers its creations; for a file the guard rails held,
 * `catalogueGuard`. Imports nothing of report.ts, which builds reports with it.
 */

/** Most products listed one by one in a report; the rest are counted. */
export const MAX_PRODUCTS_LISTED = 1000;

export type ProductOutcome = 'waiting' | 'created' | 'existing' | 'failed';

export interface ProductsSection {
  /** Products the file asked for that the portal was not known to have. */
  readonly toCreate: number;
  readonly created: number;
  /** Known to the portal when read, or found there when sent. */
  readonly existing: number;
  readonly failed: number;
  /** Not answered yet (in line, or held with the file). */
  readonly waiting: number;
  /** Accepted rows whose SKU the portal was known to have when the file was read. */
  readonly existingAtRead: number;
  /** The first of those SKUs. */
  readonly existingSkus: readonly string[];
  /** Whether sites, tax rates and centres were checked against the portal's lists. */
  readonly referencesChecked: boolean;
  readonly rows: ReadonlyArray<{
    readonly line: number;
    readonly sku: string;
    readonly outcome: ProductOutcome;
    readonly platformSku?: string;
    readonly error?: string;
  }>;
  readonly rowsOmitted: number;
  /** When the portal's answers were last added; absent until the first. */
  readonly updatedAt?: string;
}

/** The guard rail of products files: CATALOGUE_MAX_NEW. */
export interface CatalogueGuard {
  readonly held: boolean;
  readonly heldId?: number;
  readonly reason: string;
  readonly wouldCreate: number;
  readonly CATALOGUE_MAX_NEW: number;
  /** Set when the file was applied on an operator's `release`. */
  readonly released?: { readonly heldId: number; readonly heldAt: string };
}

export interface ProductsFields {
  readonly created: number;
  readonly existing: number;
  readonly shortDescription: number;
  readonly products: ProductsSection;
  readonly catalogueGuard?: CatalogueGuard;
}

/** What was read of the file that the section keeps. */
export interface ProductsReadCounts {
  readonly existingAtRead: number;
  readonly existingSkus: readonly string[];
  readonly shortDescription: number;
  readonly referencesChecked: boolean;
}

/** A product of the file as it stands now. */
export interface ProductState {
  readonly line: number;
  readonly sku: string;
  readonly state: 'queued' | 'sending' | 'created' | 'existing' | 'failed';
  readonly platformSku?: string | null;
  readonly error?: string | null;
}

export function productsFields(
  read: ProductsReadCounts,
  products: readonly ProductState[],
  guard?: CatalogueGuard,
  updatedAt?: number,
): ProductsFields {
  const outcomeOf = (s: ProductState['state']): ProductOutcome =>
    s === 'queued' || s === 'sending' ? 'waiting' : s;
  const tally = { waiting: 0, created: 0, existing: 0, failed: 0 };
  for (const p of products) tally[outcomeOf(p.state)]++;
  const rows = products.slice(0, MAX_PRODUCTS_LISTED).map((p) => ({
    line: p.line,
    sku: p.sku,
    outcome: outcomeOf(p.state),
    ...(p.platformSku ? { platformSku: p.platformSku } : {}),
    ...(p.error ? { error: p.error } : {}),
  }));
  const existing = read.existingAtRead + tally.existing;
  return {
    created: tally.created,
    existing,
    shortDescription: read.shortDescription,
    products: {
      toCreate: products.length,
      created: tally.created,
      existing,
      failed: tally.failed,
      waiting: tally.waiting,
      existingAtRead: read.existingAtRead,
      existingSkus: read.existingSkus,
      referencesChecked: read.referencesChecked,
      rows,
      rowsOmitted: products.length - rows.length,
      ...(updatedAt === undefined ? {} : { updatedAt: new Date(updatedAt).toISOString() }),
    },
    ...(guard === undefined ? {} : { catalogueGuard: guard }),
  };
}
