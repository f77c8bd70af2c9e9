import { type Caller, callJson, seg } from '../caller.ts';
import { fetchPage, type Page, type WalkOptions, walkItems, walkPages } from '../pagination.ts';
import type { CallOptions } from '../request.ts';
import {
  dataSchema,
  type ProductCreated,
  type ProductDetail,
  type ProductListItem,
  productCreatedSchema,
  productDetailSchema,
  productListItemSchema,
} from '../schemas.ts';

export const PRODUCT_SCOPES = [
  'images',
  'variants',
  'description',
  'site_pricing',
  'distribution_centre_stock',
  'factory_stock',
  'inbound_shipments',
] as const;
export type ProductScope = (typeof PRODUCT_SCOPES)[number];

export interface ProductQuery {
  /** pending, active, inactive or declined. */
  readonly platform_status?: string;
  /** active or inactive. */
  readonly status?: string;
  /** Matches name, sku or platform_sku. */
  readonly search?: string;
  /** Extra fields on each item. */
  readonly scope?: readonly ProductScope[];
  /** Shown once in the spec with scope; its effect is not documented, so it is passed as is. */
  readonly per_page?: number;
}

export interface ProductInput {
  readonly sku: string;
  readonly name: string;
  readonly description?: string;
  readonly brand?: string;
  readonly range?: string;
  readonly images?: ReadonlyArray<{ url: string; is_primary: boolean; type: string }>;
  readonly site_pricing?: ReadonlyArray<{
    site_code: string;
    price: string;
    price_currency: string;
    tax_rate_id: number;
    preorder_discount_percent?: string;
    factory_stock_discount_percent?: string;
  }>;
  readonly distribution_centre_stock?: ReadonlyArray<{
    distribution_centre_code: string;
    stock_quantity: number;
  }>;
  readonly factory_stock?: { stock_quantity: number };
  readonly [extra: string]: unknown;
}

export interface ProductsApi {
  /** One page of GET /products (100 a page); `cursor` from a page's nextCursor. */
  list(
    query?: ProductQuery & { cursor?: string },
    options?: CallOptions,
  ): Promise<Page<ProductListItem>>;
  /** Every page from `options.cursor` (or the first). */
  pages(query?: ProductQuery, options?: WalkOptions): AsyncGenerator<Page<ProductListItem>>;
  /** Every item of every page. */
  items(query?: ProductQuery, options?: WalkOptions): AsyncGenerator<ProductListItem>;
  /** GET /products/{sku_or_platform_sku} */
  get(skuOrPlatformSku: string, options?: CallOptions): Promise<ProductDetail>;
  /** POST /products (never resent: a resend could create the product twice). */
  create(input: ProductInput, options?: CallOptions): Promise<ProductCreated>;
}

function searchParams(q: ProductQuery): Record<string, string | number | undefined> {
  return {
    platform_status: q.platform_status,
    status: q.status,
    search: q.search,
    scope: q.scope && q.scope.length > 0 ? q.scope.join(',') : undefined,
    per_page: q.per_page,
  };
}

export function productsApi(caller: Caller): ProductsApi {
  const page = (q: ProductQuery, cursor: string | undefined, options?: CallOptions) =>
    fetchPage(
      caller,
      { method: 'GET', path: 'products', searchParams: searchParams(q) },
      productListItemSchema,
      cursor,
      options,
    );
  const pages = (q: ProductQuery = {}, options: WalkOptions = {}) =>
    walkPages((cursor, o) => page(q, cursor, o), options, 'GET /products');
  return {
    list: ({ cursor, ...q } = {}, options) => page(q, cursor, options),
    pages,
    items: (q, options) => walkItems(pages(q, options)),
    get: async (sku, options) =>
      (
        await callJson(
          caller,
          { method: 'GET', path: `products/${seg(sku)}`, resend: 'always' },
          dataSchema(productDetailSchema),
          options,
        )
      ).data,
    create: async (input, options) =>
      (
        await callJson(
          caller,
          { method: 'POST', path: 'products', json: input, resend: 'never' },
          dataSchema(productCreatedSchema),
          options,
        )
      ).data,
  };
}
