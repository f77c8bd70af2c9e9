/** Products: GET /products (filters, scope, cursor), GET /products/{sku_or_platform_sku}, POST. */
import { z } from 'zod';
import {
  type ApiContext,
  type ApiRequest,
  type ApiResponse,
  param,
  type RouteDef,
} from '../context.ts';
import { paginate } from '../cursorPages.ts';
import { invalidParameter, notFound } from '../httpError.ts';
import { type PlatformStatus, PRODUCT_SCOPES, type ProductScope } from '../model.ts';
import { enumQuery, intQuery, objectBody } from '../params.ts';
import { MAX_QUANTITY } from '../stockArrays.ts';
import { cursorFrom, pageBody } from './listPage.ts';

export const PRODUCTS_PER_PAGE = 100;
export const PRODUCTS_MAX_PER_PAGE = 100;

const PLATFORM_STATUSES: readonly PlatformStatus[] = ['pending', 'active', 'inactive', 'declined'];
const STATUS_FILTERS = ['active', 'inactive'] as const;

function parseScopes(raw: string | null): Set<ProductScope> {
  const scopes = new Set<ProductScope>();
  if (raw === null || raw.trim() === '') return scopes;
  for (const part of raw.split(',')) {
    const s = part.trim();
    if (s === '') continue;
    if (!(PRODUCT_SCOPES as readonly string[]).includes(s)) {
      throw invalidParameter('scope', `Unknown scope ${s}. Allowed: ${PRODUCT_SCOPES.join(', ')}.`);
    }
    scopes.add(s as ProductScope);
  }
  return scopes;
}

function list(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const { store } = ctx;
  const platformStatus = enumQuery(req.query, 'platform_status', PLATFORM_STATUSES);
  const status = enumQuery(req.query, 'status', STATUS_FILTERS);
  const search = req.query.get('search')?.trim().toLowerCase() || undefined;
  const scopes = parseScopes(req.query.get('scope'));
  const perPage = intQuery(req.query, 'per_page', 1, PRODUCTS_MAX_PER_PAGE) ?? PRODUCTS_PER_PAGE;
  const filtered = platformStatus !== undefined || status !== undefined || search !== undefined;
  const matches = filtered
    ? (p: number) =>
        (platformStatus === undefined || store.platformStatusAt(p) === platformStatus) &&
        (status === undefined || store.statusAt(p) === status) &&
        (search === undefined ||
          store.skuAt(p).toLowerCase().includes(search) ||
          store.platformSkuAt(p).includes(search) ||
          store.nameAt(p).toLowerCase().includes(search))
    : undefined;
  const slice = paginate({
    kind: 'products',
    total: store.productCount,
    perPage,
    cursor: cursorFrom(req, 'products', ctx),
    matches,
    maxScan: ctx.maxScan,
  });
  return {
    status: 200,
    body: pageBody(req, slice, perPage, (p) => store.listItemAt(p, scopes), ctx),
  };
}

function detail(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const key = param(req, 'sku');
  const product = ctx.store.product(key);
  if (!product) throw notFound('sku', `Product ${key} not found.`);
  return { status: 200, body: { data: product } };
}

const quantity = z.number().int().min(0).max(MAX_QUANTITY);
const decimal = z.string().regex(/^\d+(\.\d{1,2})?$/, 'must be a decimal string like "19.99"');
const percent = decimal.refine((v) => Number(v) <= 100, 'must be at most 100.00');
const productSchema = z.object({
  sku: z.string().trim().min(1).max(64),
  name: z.string().trim().min(1).max(255),
  brand: z.string().trim().min(1).max(255),
  description: z.string().max(20_000).optional(),
  range: z.string().max(255).optional(),
  images: z
    .array(
      z.object({
        url: z.url(),
        is_primary: z.boolean().optional(),
        type: z.string().min(1).max(50).optional(),
      }),
    )
    .max(20)
    .optional(),
  site_pricing: z
    .array(
      z.object({
        site_code: z.string().min(1),
        price: decimal,
        price_currency: z.string().regex(/^[A-Z]{3}$/, 'must be a 3-letter currency code'),
        tax_rate_id: z.number().int(),
        preorder_discount_percent: percent.optional(),
        factory_stock_discount_percent: percent.optional(),
      }),
    )
    .optional(),
  distribution_centre_stock: z
    .array(z.object({ distribution_centre_code: z.string().min(1), stock_quantity: quantity }))
    .optional(),
  factory_stock: z.object({ stock_quantity: quantity }).optional(),
});

function create(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const parsed = productSchema.safeParse(objectBody(req.body));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') || 'body';
    const missing = issue?.code === 'invalid_type' && issue.input === undefined;
    throw invalidParameter(
      field,
      missing
        ? `The ${field} field is required.`
        : `The ${field} is invalid: ${issue?.message ?? 'bad value'}.`,
    );
  }
  const product = ctx.store.addProduct(parsed.data);
  return {
    status: 201,
    body: {
      data: {
        sku: product.sku,
        platform_sku: product.platform_sku,
        name: product.name,
        status: product.status,
        platform_status: product.platform_status,
        images: product.images,
        site_pricing: product.site_pricing,
        distribution_centre_stock: product.distribution_centre_stock,
        factory_stock: { stock_quantity: product.factory_stock.stock_quantity },
      },
    },
  };
}

export const productRoutes: RouteDef[] = [
  { method: 'GET', pattern: '/products', auth: true, handler: list },
  { method: 'POST', pattern: '/products', auth: true, handler: create },
  { method: 'GET', pattern: '/products/:sku', auth: true, handler: detail },
];
