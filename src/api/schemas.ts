/**
 * Response shapes, checked where the spec shows fields and open where it is silent: every object
 * is loose (extra fields are kept), status values are plain strings (new ones must not break a
 * sync), and lists the spec shows but a product may lack default to empty.
 */
import { z } from 'zod';

const int = z.number().int();
const nullableString = z.string().nullable();

export const siteSchema = z.looseObject({ code: z.string(), name: z.string() });
export type Site = z.infer<typeof siteSchema>;

export const brandSchema = z.looseObject({
  id: int,
  name: z.string(),
  description: nullableString.optional().default(null),
  image: nullableString.optional().default(null),
});
export type Brand = z.infer<typeof brandSchema>;

export const brandCreatedSchema = z.looseObject({
  message: z.string().optional(),
  brand_id: int,
  name: z.string(),
  description: nullableString.optional(),
  image: nullableString.optional(),
});
export type BrandCreated = z.infer<typeof brandCreatedSchema>;

export const distributionCentreSchema = z.looseObject({
  code: z.string(),
  name: z.string(),
  site: siteSchema,
  is_supplier_dc: z.boolean(),
  is_fulfillment_centre: z.boolean(),
  is_warehouse: z.boolean(),
  is_active: z.boolean(),
  leadtime_days: int,
  cutoff_time: z.string(),
});
export type DistributionCentre = z.infer<typeof distributionCentreSchema>;

export const taxRateSchema = z.looseObject({
  id: int,
  name: z.string(),
  rate: z.string(),
  country_code: z.string(),
  state_code: nullableString,
  display_name: z.string(),
});
export type TaxRate = z.infer<typeof taxRateSchema>;

export const productImageSchema = z.looseObject({
  id: int.optional(),
  url: z.string(),
  type: z.string(),
  is_primary: z.boolean(),
});

export const sitePricingSchema = z.looseObject({
  site: siteSchema,
  price: z.string(),
  price_currency: z.string(),
});

export const productDcStockSchema = z.looseObject({
  distribution_centre_code: z.string(),
  stock_quantity: int,
});

export const factoryStockSchema = z.looseObject({
  sku: z.string(),
  platform_sku: z.string(),
  stock_quantity: int,
  stock_quantity_allocated: int,
  stock_quantity_free: int,
});
export type FactoryStock = z.infer<typeof factoryStockSchema>;

export const dcStockSchema = z.looseObject({
  distribution_centre_code: z.string(),
  sku: z.string(),
  platform_sku: z.string(),
  stock_quantity: int,
  stock_quantity_allocated: int,
  stock_quantity_free: int,
  inbound_quantity: int,
  inbound_quantity_allocated: int,
  inbound_quantity_free: int,
});
export type DcStock = z.infer<typeof dcStockSchema>;

const productBase = {
  sku: z.string(),
  platform_sku: z.string(),
  name: z.string(),
  status: z.string(),
  platform_status: z.string(),
};

/** A list item; scoped fields (images, factory_stock, …) are kept as sent. */
export const productListItemSchema = z.looseObject({
  ...productBase,
  declined_reason: nullableString.optional().default(null),
});
export type ProductListItem = z.infer<typeof productListItemSchema>;

export const productDetailSchema = z.looseObject({
  ...productBase,
  declined_reason: nullableString.optional(),
  description: nullableString.optional(),
  images: z.array(productImageSchema).default([]),
  site_pricing: z.array(sitePricingSchema).default([]),
  variants: z.array(z.unknown()).default([]),
  distribution_centre_stock: z.array(productDcStockSchema).default([]),
  factory_stock: factoryStockSchema
    .partial({ sku: true, platform_sku: true })
    .nullable()
    .optional(),
  inbound_shipments: z.array(z.unknown()).default([]),
});
export type ProductDetail = z.infer<typeof productDetailSchema>;

export const productCreatedSchema = z.looseObject({
  ...productBase,
  images: z.array(productImageSchema).default([]),
  site_pricing: z.array(sitePricingSchema).default([]),
  distribution_centre_stock: z.array(productDcStockSchema).default([]),
  factory_stock: z.looseObject({ stock_quantity: int }).nullable().optional(),
});
export type ProductCreated = z.infer<typeof productCreatedSchema>;

/** Shipment records: the spec shows only these fields; everything else is kept as sent. */
export const shipmentSchema = z.looseObject({
  order_number: z.string(),
  status: z.string().optional(),
  carrier: nullableString.optional(),
  tracking_number: nullableString.optional(),
  is_collected: z.boolean().optional(),
  /** Not in the spec; read when a portal sends it (the simulator does). */
  is_shipped: z.boolean().optional(),
});
export type Shipment = z.infer<typeof shipmentSchema>;

export const stockUpdatedSchema = z.looseObject({
  distribution_centre_code: z.string().optional(),
  platform_sku: nullableString.optional(),
  sku: z.string(),
  stock_quantity: int,
});
export type StockUpdated = z.infer<typeof stockUpdatedSchema>;

export const stockErrorSchema = z.looseObject({
  distribution_centre_code: nullableString.optional(),
  platform_sku: nullableString.optional(),
  sku: nullableString.optional(),
  stock_quantity: int.nullable().optional(),
  error: z.string().optional(),
});
export type StockError = z.infer<typeof stockErrorSchema>;

/** `{updated, errors}`; either may be missing in an answer the spec leaves open (DC bulk). */
export const stockUpdateResultSchema = z.looseObject({
  updated: z.array(stockUpdatedSchema).default([]),
  errors: z.array(stockErrorSchema).default([]),
});

export const pageMetaSchema = z.looseObject({
  path: z.string().optional(),
  per_page: int.optional(),
  next_cursor: nullableString.optional().default(null),
  prev_cursor: nullableString.optional().default(null),
  /** Not in the spec: some portals say how many rows the whole list holds. */
  total: int.optional().catch(undefined),
});

export const pageLinksSchema = z.looseObject({
  first: nullableString.optional(),
  last: nullableString.optional(),
  prev: nullableString.optional(),
  next: nullableString.optional(),
});

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    data: z.array(item),
    links: pageLinksSchema.optional(),
    meta: pageMetaSchema.optional(),
  });
}

export function dataSchema<T extends z.ZodType>(inner: T) {
  return z.looseObject({ data: inner });
}
