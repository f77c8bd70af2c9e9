/**
 * New products for the portal (docs/products.md): what a products file's row becomes, the portal's
 * references it is checked against, and the rules both the reading and the creation keep. Pure:
 * plain data in, plain data out.
 */

/** How long the portal's sites, tax rates and centres are trusted before they are read again. */
export const REFERENCES_MAX_AGE_MS = 24 * 3_600_000;

/**
 * A brand list read this recently is trusted for names it lacks: a brand missing from it is
 * created without reading the list again (one call per new brand, and a bounded number of reads).
 */
export const BRAND_LIST_FRESH_MS = 10 * 60_000;

/** The text under which the platform's marketing cannot enrich a product (the spec's figure). */
export const ENRICHABLE_DESCRIPTION = 100;

/**
 * The length of a description as the platform counts it: characters (code points) after the
 * surrounding white space is trimmed; none is 0.
 */
export function descriptionLength(description: string | undefined): number {
  if (description === undefined) return 0;
  return [...description.trim()].length;
}

/** A description the platform's marketing cannot enrich (under 100 characters). */
export function isShortDescription(description: string | undefined): boolean {
  return descriptionLength(description) < ENRICHABLE_DESCRIPTION;
}

/** One site's price of a new product, as `POST /products` takes it. */
export interface SitePrice {
  readonly site_code: string;
  /** A decimal with two places ("19.90"). */
  readonly price: string;
  /** Three upper-case letters. */
  readonly price_currency: string;
  readonly tax_rate_id: number;
  readonly preorder_discount_percent?: string;
  readonly factory_stock_discount_percent?: string;
}

export interface ProductImage {
  readonly url: string;
  readonly is_primary: boolean;
  readonly type: string;
}

/**
 * A new product as a products file gives it: the body of `POST /products` without its stock
 * (the stock is worked out when it is created, from the file's own columns or desired stock).
 */
export interface ProductDraft {
  readonly sku: string;
  readonly name: string;
  readonly description?: string;
  readonly brand?: string;
  readonly range?: string;
  readonly images?: readonly ProductImage[];
  readonly site_pricing?: readonly SitePrice[];
}

/** The stock a products file gives for a product at its creation (the ERP's quantities). */
export interface BirthStock {
  /** `factory_stock`; undefined when the file gives none. */
  readonly factory?: number;
  /** `stock@DC-CODE`, by the portal's code of the centre. */
  readonly dcs: Readonly<Record<string, number>>;
}

/** What the portal's reference data says of a code, for checking a products file's rows. */
export interface CatalogueReferences {
  /** The portal's spelling of a site code (compared case-insensitively); undefined: no such site. */
  site(code: string): string | undefined;
  /** The codes of every site, for messages. */
  readonly siteCodes: readonly string[];
  taxRate(id: number): boolean;
  /** The portal's spelling of a centre's code and whether it is active; undefined: unknown. */
  centre(code: string): { readonly code: string; readonly active: boolean } | undefined;
}

/** The reference data as read from the portal (and kept in state.db). */
export interface ReferenceData {
  readonly sites: readonly string[];
  readonly taxRateIds: readonly number[];
  readonly centres: ReadonlyArray<{ readonly code: string; readonly active: boolean }>;
}

/** Lookups over reference data; codes compared case-insensitively (headers are lower-cased). */
export function catalogueReferences(data: ReferenceData): CatalogueReferences {
  const sites = new Map(data.sites.map((s) => [s.toLowerCase(), s]));
  const rates = new Set(data.taxRateIds);
  const centres = new Map(data.centres.map((c) => [c.code.toLowerCase(), c]));
  return {
    site: (code) => sites.get(code.trim().toLowerCase()),
    siteCodes: [...data.sites],
    taxRate: (id) => rates.has(id),
    centre: (code) => centres.get(code.trim().toLowerCase()),
  };
}

/** A brand as the portal compares names: trimmed, in any case. */
export function brandKey(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * A product that now exists on the portal (created, or found by a read), and the stock the
 * portal answered it holds (absent when the answer did not say).
 */
export interface AppearedProduct {
  readonly sku: string;
  readonly platformSku: string | null;
  readonly stock?: {
    readonly factory: number | null;
    readonly dcs: ReadonlyArray<{ readonly dc: string; readonly quantity: number }>;
  };
}
