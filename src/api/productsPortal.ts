import type { ProductDraft } from '../domain/catalogue.ts';
import type { PortalClient } from './client.ts';
import { PortalHttpError } from './portalErrors.ts';
import type {
  Brand,
  BrandCreated,
  DistributionCentre,
  ProductCreated,
  ProductDetail,
  ProductListItem,
  Site,
  TaxRate,
} from './schemas.ts';

/** A new product's body: the draft and the stock it is born with. */
export interface NewProductBody extends ProductDraft {
  readonly distribution_centre_stock?: ReadonlyArray<{
    readonly distribution_centre_code: string;
    readonly stock_quantity: number;
  }>;
  readonly factory_stock?: { readonly stock_quantity: number };
}

/** One page of the portal's product list. */
export interface ProductsPage {
  readonly items: readonly ProductListItem[];
  /** Cursor of the page after this one; null at the end. */
  readonly nextCursor: string | null;
}

/**
 * The portal as the products flow sees it (src/products/): every call in the 'products' lane of
 * the budget (after stock pushes, before reconciliation). Creations are never resent by the
 * client (a resend could create twice): the flow records its intent before the call and asks
 * the portal for the SKU (`find`) when an attempt got no answer.
 */
export interface ProductsPortal {
  /** POST /products. Throws the client's typed errors (decide with the failure policy). */
  create(body: NewProductBody, signal?: AbortSignal): Promise<ProductCreated>;
  /** GET /products/{sku}; null when the portal answers 404 (it has no such product). */
  find(sku: string, signal?: AbortSignal): Promise<ProductDetail | null>;
  /**
   * One page of GET /products (100 a page), at `cursor` (null: the first page), filtered by
   * platform status or not.
   */
  list(
    query: { readonly platformStatus?: string },
    cursor: string | null,
    signal?: AbortSignal,
  ): Promise<ProductsPage>;
  /** GET /brands. */
  brands(signal?: AbortSignal): Promise<Brand[]>;
  /** POST /brands. */
  createBrand(name: string, signal?: AbortSignal): Promise<BrandCreated>;
  /** GET /sites, /tax-rates and /distribution-centres. */
  references(signal?: AbortSignal): Promise<{
    sites: Site[];
    taxRates: TaxRate[];
    centres: DistributionCentre[];
  }>;
}

export function productsPortal(client: PortalClient): ProductsPortal {
  const options = (signal: AbortSignal | undefined) => ({ lane: 'products' as const, signal });
  return {
    create: (body, signal) =>
      client.products.create(body as Parameters<typeof client.products.create>[0], options(signal)),
    async find(sku, signal) {
      try {
        return await client.products.get(sku, options(signal));
      } catch (err) {
        if (err instanceof PortalHttpError && err.status === 404) return null;
        throw err;
      }
    },
    async list(query, cursor, signal) {
      const page = await client.products.list(
        {
          ...(query.platformStatus === undefined ? {} : { platform_status: query.platformStatus }),
          ...(cursor === null ? {} : { cursor }),
        },
        options(signal),
      );
      return { items: page.items, nextCursor: page.nextCursor };
    },
    brands: (signal) => client.brands.list(options(signal)),
    createBrand: (name, signal) => client.brands.create({ name }, options(signal)),
    async references(signal) {
      const sites = await client.reference.sites(options(signal));
      const taxRates = await client.reference.taxRates(options(signal));
      const centres = await client.reference.distributionCentres(options(signal));
      return { sites, taxRates, centres };
    },
  };
}
