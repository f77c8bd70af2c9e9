/**
 * Resource shapes served by the simulator, field for field as in the Supplier Portal API v1 spec.
 * Where the spec shows no shape (shipments, brand PUT/DELETE, error entries of DC stock), the shape
 * chosen here is documented in docs/simulator.md.
 */

export interface Brand {
  id: number;
  name: string;
  description: string | null;
  image: string | null;
}

export interface Site {
  code: string;
  name: string;
}

export interface DistributionCentre {
  code: string;
  name: string;
  site: Site;
  is_supplier_dc: boolean;
  is_fulfillment_centre: boolean;
  is_warehouse: boolean;
  is_active: boolean;
  leadtime_days: number;
  /** HH:MM:SS */
  cutoff_time: string;
}

export interface TaxRate {
  id: number;
  name: string;
  rate: string;
  country_code: string;
  state_code: string | null;
  display_name: string;
}

export interface FactoryStockRecord {
  sku: string;
  platform_sku: string;
  stock_quantity: number;
  stock_quantity_allocated: number;
  stock_quantity_free: number;
}

export interface DcStockRecord {
  distribution_centre_code: string;
  sku: string;
  platform_sku: string;
  stock_quantity: number;
  stock_quantity_allocated: number;
  stock_quantity_free: number;
  inbound_quantity: number;
  inbound_quantity_allocated: number;
  inbound_quantity_free: number;
}

export interface ProductImage {
  id: number;
  url: string;
  type: string;
  is_primary: boolean;
}

export interface SitePricing {
  site: Site;
  price: string;
  price_currency: string;
}

export interface ProductDcStock {
  distribution_centre_code: string;
  stock_quantity: number;
}

export type PlatformStatus = 'pending' | 'active' | 'inactive' | 'declined';
export type ProductStatus = 'active' | 'inactive' | 'pending';

export interface ProductListItem {
  sku: string;
  platform_sku: string;
  name: string;
  status: ProductStatus;
  platform_status: PlatformStatus;
  declined_reason: string | null;
}

export interface ProductDetail extends ProductListItem {
  brand: string;
  range: string | null;
  description: string;
  images: ProductImage[];
  site_pricing: SitePricing[];
  variants: unknown[];
  distribution_centre_stock: ProductDcStock[];
  factory_stock: FactoryStockRecord;
  inbound_shipments: unknown[];
}

/** Extra fields a products list can include through `scope`. */
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

export type ShipmentStatus = 'pending' | 'shipped' | 'collected';
export const SHIPMENT_STATUSES: readonly ShipmentStatus[] = ['pending', 'shipped', 'collected'];

export interface ShipmentItem {
  sku: string;
  platform_sku: string;
  name: string;
  quantity: number;
}

export interface ShipmentRecord {
  order_number: string;
  status: ShipmentStatus;
  /** YYYY-MM-DD: the day the shipment is due to leave. */
  ship_by: string;
  distribution_centre_code: string;
  site_code: string;
  delivery: { name: string; city: string; postcode: string; country_code: string };
  items: ShipmentItem[];
  carrier: string | null;
  tracking_number: string | null;
  is_shipped: boolean;
  is_collected: boolean;
  /** ISO 8601 timestamps, null until the event happened. */
  shipped_at: string | null;
  collected_at: string | null;
  created_at: string;
}

/** One entry of `updated` in a stock update response. */
export interface StockUpdated {
  distribution_centre_code?: string;
  platform_sku: string;
  sku: string;
  stock_quantity: number;
}

/** One entry of `errors` in a stock update response. */
export interface StockUpdateError {
  distribution_centre_code?: string | null;
  platform_sku: string | null;
  sku: string | null;
  stock_quantity: number | null;
  error: string;
}

export interface StockUpdateResult {
  updated: StockUpdated[];
  errors: StockUpdateError[];
}
