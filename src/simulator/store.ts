/**
 * The simulator's in-memory state. Products live in parallel typed arrays indexed by position
 * (seeded products are computed from the seed, never stored as objects), so a million products
 * cost a few tens of megabytes and start in well under a second. Created products are appended.
 */
import { alreadyExists, conflict, HttpError, invalidParameter, notFound } from './httpError.ts';
import type {
  Brand,
  DcStockRecord,
  DistributionCentre,
  FactoryStockRecord,
  PlatformStatus,
  ProductDcStock,
  ProductDetail,
  ProductImage,
  ProductListItem,
  ProductScope,
  ProductStatus,
  ShipmentRecord,
  Site,
  SitePricing,
  TaxRate,
} from './model.ts';
import { type PlatformSkuCodec, platformSkuCodec } from './platformSku.ts';
import {
  ACTIVE_DC_CODES,
  currencyOf,
  DISTRIBUTION_CENTRES,
  ProductSeed,
  parseSeededSku,
  SEED_BRANDS,
  SITES,
  seededSku,
  seedShipments,
  TAX_RATES,
} from './seed.ts';

/** Largest quantity accepted (quantities are stored as 32-bit integers). */
export const MAX_QUANTITY = 2_147_483_647;

const PLATFORM_STATUSES: readonly PlatformStatus[] = ['pending', 'active', 'inactive', 'declined'];
const STATUSES: readonly ProductStatus[] = ['active', 'inactive', 'pending'];

export interface StoreOptions {
  seed: number;
  products: number;
  shipments: number;
  /** 'YYYY-MM-DD' the simulator calls today; seeded shipments are relative to its value at start. */
  today: () => string;
  /** Clock in ms since the epoch, for timestamps. */
  now: () => number;
}

/** Input of addProduct (POST /products body after shape validation). */
export interface NewProduct {
  sku: string;
  name: string;
  brand: string;
  description?: string | undefined;
  range?: string | undefined;
  images?: Array<{ url: string; is_primary?: boolean | undefined; type?: string | undefined }>;
  site_pricing?: Array<{
    site_code: string;
    price: string;
    price_currency: string;
    tax_rate_id: number;
    preorder_discount_percent?: string | undefined;
    factory_stock_discount_percent?: string | undefined;
  }>;
  distribution_centre_stock?: Array<{ distribution_centre_code: string; stock_quantity: number }>;
  factory_stock?: { stock_quantity: number } | undefined;
}

interface CreatedProduct {
  sku: string;
  name: string;
  brand: string;
  range: string | null;
  description: string;
  images: ProductImage[];
  sitePricing: SitePricing[];
}

export interface NewShipment {
  order_number?: string;
  ship_by?: string;
  status?: ShipmentRecord['status'];
  distribution_centre_code?: string;
  items?: Array<{ sku: string; quantity: number }>;
}

export class SimulatorStore {
  readonly #seed: ProductSeed;
  readonly #codec: PlatformSkuCodec;
  readonly #seeded: number;
  readonly #dcCount = ACTIVE_DC_CODES.length;
  readonly #dcIndex = new Map(ACTIVE_DC_CODES.map((code, i) => [code, i]));
  #count: number;
  #capacity: number;
  #status: Uint8Array;
  #platformStatus: Uint8Array;
  #factoryQty: Int32Array;
  #factoryAlloc: Int32Array;
  #dcQty: Int32Array;
  #dcAlloc: Int32Array;
  readonly #created = new Map<number, CreatedProduct>();
  readonly #createdBySku = new Map<string, number>();
  #nextImageId = 1_000_000_001;
  readonly #brands = new Map<number, Brand>();
  #nextBrandId: number;
  readonly #shipments = new Map<string, ShipmentRecord>();
  #nextOrder: number;
  readonly #today: () => string;
  readonly #now: () => number;

  constructor(options: StoreOptions) {
    this.#today = options.today;
    this.#now = options.now;
    const seed = new ProductSeed(options.seed);
    this.#seed = seed;
    this.#codec = platformSkuCodec(options.seed);
    const n = options.products;
    this.#seeded = n;
    this.#count = n;
    this.#capacity = n + 1024;
    this.#status = new Uint8Array(this.#capacity);
    this.#platformStatus = new Uint8Array(this.#capacity);
    this.#factoryQty = new Int32Array(this.#capacity);
    this.#factoryAlloc = new Int32Array(this.#capacity);
    this.#dcQty = new Int32Array(this.#capacity * this.#dcCount);
    this.#dcAlloc = new Int32Array(this.#capacity * this.#dcCount);
    for (let i = 0; i < n; i++) {
      this.#status[i] = STATUSES.indexOf(seed.status(i));
      this.#platformStatus[i] = PLATFORM_STATUSES.indexOf(seed.platformStatus(i));
      const f = seed.factoryStock(i);
      this.#factoryQty[i] = f.quantity;
      this.#factoryAlloc[i] = f.allocated;
      for (let d = 0; d < this.#dcCount; d++) {
        const s = seed.dcStock(i, d);
        this.#dcQty[i * this.#dcCount + d] = s.quantity;
        this.#dcAlloc[i * this.#dcCount + d] = s.allocated;
      }
    }
    for (const b of SEED_BRANDS) this.#brands.set(b.id, { ...b });
    this.#nextBrandId = SEED_BRANDS.length + 1;
    const shipments = seedShipments({
      seed: options.seed,
      count: options.shipments,
      today: options.today(),
      now: options.now(),
      productCount: n,
      item: (p) => ({
        sku: this.skuAt(p),
        platform_sku: this.platformSkuAt(p),
        name: this.nameAt(p),
      }),
    });
    for (const s of shipments) this.#shipments.set(s.order_number, s);
    this.#nextOrder = 100001 + options.shipments;
  }

  // ---- products -------------------------------------------------------------------------------

  /** Number of products (seeded and created); positions run 0..productCount-1. */
  get productCount(): number {
    return this.#count;
  }

  skuAt(position: number): string {
    return this.#created.get(position)?.sku ?? seededSku(position);
  }

  platformSkuAt(position: number): string {
    return this.#codec.format(position);
  }

  nameAt(position: number): string {
    return this.#created.get(position)?.name ?? this.#seed.name(position);
  }

  statusAt(position: number): ProductStatus {
    return STATUSES[this.#status[position]!]!;
  }

  platformStatusAt(position: number): PlatformStatus {
    return PLATFORM_STATUSES[this.#platformStatus[position]!]!;
  }

  /** Position of a product by its supplier SKU. */
  positionOfSku(sku: string): number | undefined {
    const created = this.#createdBySku.get(sku);
    if (created !== undefined) return created;
    const p = parseSeededSku(sku);
    return p !== undefined && p < this.#seeded ? p : undefined;
  }

  /** Position of a product by its SKU or its platform SKU. */
  positionOf(skuOrPlatformSku: string): number | undefined {
    const bySku = this.positionOfSku(skuOrPlatformSku);
    if (bySku !== undefined) return bySku;
    const p = this.#codec.parse(skuOrPlatformSku);
    return p !== undefined && p < this.#count ? p : undefined;
  }

  listItemAt(position: number, scopes?: ReadonlySet<ProductScope>): Record<string, unknown> {
    const platformStatus = this.platformStatusAt(position);
    const item: ProductListItem & Record<string, unknown> = {
      sku: this.skuAt(position),
      platform_sku: this.platformSkuAt(position),
      name: this.nameAt(position),
      status: this.statusAt(position),
      platform_status: platformStatus,
      declined_reason:
        platformStatus === 'declined' && !this.#created.has(position)
          ? this.#seed.declinedReason(position)
          : null,
    };
    if (!scopes || scopes.size === 0) return item;
    if (scopes.has('images')) item.images = this.#images(position);
    if (scopes.has('variants')) item.variants = [];
    if (scopes.has('description')) item.description = this.#description(position);
    if (scopes.has('site_pricing')) item.site_pricing = this.#sitePricing(position);
    if (scopes.has('distribution_centre_stock'))
      item.distribution_centre_stock = this.#productDcStock(position);
    if (scopes.has('factory_stock')) item.factory_stock = this.factoryRecordAt(position);
    if (scopes.has('inbound_shipments')) item.inbound_shipments = [];
    return item;
  }

  detailAt(position: number): ProductDetail {
    const created = this.#created.get(position);
    return {
      ...(this.listItemAt(position) as unknown as ProductListItem),
      brand: created?.brand ?? this.#seed.brand(position),
      range: created ? created.range : this.#seed.range(position),
      description: this.#description(position),
      images: this.#images(position),
      site_pricing: this.#sitePricing(position),
      variants: [],
      distribution_centre_stock: this.#productDcStock(position),
      factory_stock: this.factoryRecordAt(position),
      inbound_shipments: [],
    };
  }

  /** A product by sku or platform_sku, in the detail shape. */
  product(skuOrPlatformSku: string): ProductDetail | undefined {
    const p = this.positionOf(skuOrPlatformSku);
    return p === undefined ? undefined : this.detailAt(p);
  }

  /**
   * Creates a product (status pending, platform_status inactive) and sets the stock it carries.
   * Throws HttpError 400 for unknown references and 422 for a duplicate SKU.
   */
  addProduct(input: NewProduct): ProductDetail {
    if (this.positionOfSku(input.sku) !== undefined) {
      throw alreadyExists('sku', `A product with sku ${input.sku} already exists.`);
    }
    if (!this.brandByName(input.brand)) {
      throw invalidParameter('brand', `The brand ${input.brand} does not exist.`);
    }
    const sitePricing: SitePricing[] = (input.site_pricing ?? []).map((entry, i) => {
      const site = SITES.find((s) => s.code === entry.site_code);
      if (!site) throw invalidParameter(`site_pricing.${i}.site_code`, 'Unknown site code.');
      if (!TAX_RATES.some((t) => t.id === entry.tax_rate_id)) {
        throw invalidParameter(`site_pricing.${i}.tax_rate_id`, 'Unknown tax rate id.');
      }
      return { site: { ...site }, price: entry.price, price_currency: entry.price_currency };
    });
    const dcStock = input.distribution_centre_stock ?? [];
    dcStock.forEach((entry, i) => {
      const field = `distribution_centre_stock.${i}.distribution_centre_code`;
      const dc = DISTRIBUTION_CENTRES.find((d) => d.code === entry.distribution_centre_code);
      if (!dc) throw invalidParameter(field, 'Unknown distribution centre.');
      if (!dc.is_active) throw invalidParameter(field, 'The distribution centre is not active.');
    });
    const images: ProductImage[] = (input.images ?? []).map((img, i) => ({
      id: this.#nextImageId++,
      url: img.url,
      type: img.type ?? 'lifestyle',
      is_primary: img.is_primary ?? i === 0,
    }));
    if (this.#count === this.#capacity) this.#grow();
    const p = this.#count++;
    this.#created.set(p, {
      sku: input.sku,
      name: input.name,
      brand: input.brand,
      range: input.range ?? null,
      description: input.description ?? '',
      images,
      sitePricing,
    });
    this.#createdBySku.set(input.sku, p);
    this.#status[p] = STATUSES.indexOf('pending');
    this.#platformStatus[p] = PLATFORM_STATUSES.indexOf('inactive');
    this.#factoryQty[p] = input.factory_stock?.stock_quantity ?? 0;
    this.#factoryAlloc[p] = 0;
    for (let d = 0; d < this.#dcCount; d++) {
      this.#dcQty[p * this.#dcCount + d] = 0;
      this.#dcAlloc[p * this.#dcCount + d] = 0;
    }
    for (const entry of dcStock) {
      const d = this.#dcIndex.get(entry.distribution_centre_code)!;
      this.#dcQty[p * this.#dcCount + d] = entry.stock_quantity;
    }
    return this.detailAt(p);
  }

  #grow(): void {
    const capacity = this.#capacity * 2;
    const grow = <T extends Uint8Array | Int32Array>(old: T, make: (n: number) => T, n: number) => {
      const next = make(n);
      next.set(old);
      return next;
    };
    this.#status = grow(this.#status, (n) => new Uint8Array(n), capacity);
    this.#platformStatus = grow(this.#platformStatus, (n) => new Uint8Array(n), capacity);
    this.#factoryQty = grow(this.#factoryQty, (n) => new Int32Array(n), capacity);
    this.#factoryAlloc = grow(this.#factoryAlloc, (n) => new Int32Array(n), capacity);
    this.#dcQty = grow(this.#dcQty, (n) => new Int32Array(n), capacity * this.#dcCount);
    this.#dcAlloc = grow(this.#dcAlloc, (n) => new Int32Array(n), capacity * this.#dcCount);
    this.#capacity = capacity;
  }

  #description(position: number): string {
    const created = this.#created.get(position);
    return created ? created.description : this.#seed.description(position);
  }

  #images(position: number): ProductImage[] {
    const created = this.#created.get(position);
    if (created) return created.images.map((i) => ({ ...i }));
    const sku = this.skuAt(position).toLowerCase();
    const out: ProductImage[] = [];
    for (let k = 0; k < this.#seed.imageCount(position); k++) {
      out.push({
        id: (position + 1) * 10 + k,
        url: `https://cdn.example.com/products/${sku}/${k + 1}.jpg`,
        type: k === 0 ? 'packshot' : 'lifestyle',
        is_primary: k === 0,
      });
    }
    return out;
  }

  #sitePricing(position: number): SitePricing[] {
    const created = this.#created.get(position);
    if (created) return created.sitePricing.map((s) => ({ ...s, site: { ...s.site } }));
    return SITES.map((site, i) => ({
      site: { ...site },
      price: (this.#seed.priceMinor(position, i) / 100).toFixed(2),
      price_currency: currencyOf(site.code),
    }));
  }

  #productDcStock(position: number): ProductDcStock[] {
    return ACTIVE_DC_CODES.map((code, d) => ({
      distribution_centre_code: code,
      stock_quantity: this.#dcQty[position * this.#dcCount + d]!,
    }));
  }

  // ---- factory stock --------------------------------------------------------------------------

  factoryQuantityAt(position: number): number {
    return this.#factoryQty[position]!;
  }

  factoryAllocatedAt(position: number): number {
    return this.#factoryAlloc[position]!;
  }

  factoryRecordAt(position: number): FactoryStockRecord {
    const quantity = this.#factoryQty[position]!;
    const allocated = this.#factoryAlloc[position]!;
    return {
      sku: this.skuAt(position),
      platform_sku: this.platformSkuAt(position),
      stock_quantity: quantity,
      stock_quantity_allocated: allocated,
      stock_quantity_free: quantity - allocated,
    };
  }

  factoryStock(sku: string): FactoryStockRecord | undefined {
    const p = this.positionOfSku(sku);
    return p === undefined ? undefined : this.factoryRecordAt(p);
  }

  *allFactoryStock(): IterableIterator<FactoryStockRecord> {
    for (let p = 0; p < this.#count; p++) yield this.factoryRecordAt(p);
  }

  /**
   * Sets the factory stock of the product at a position. A quantity below the current allocation
   * lowers the allocation to the quantity (free stock is never negative).
   */
  setFactoryQuantityAt(position: number, quantity: number): void {
    this.#factoryQty[position] = quantity;
    if (this.#factoryAlloc[position]! > quantity) this.#factoryAlloc[position] = quantity;
  }

  /** Test helper: set factory stock (and optionally the allocation) by SKU. */
  setFactoryStock(sku: string, quantity: number, allocated?: number): void {
    const p = this.positionOfSku(sku);
    if (p === undefined) throw new Error(`unknown sku ${sku}`);
    checkQuantity(quantity, allocated);
    this.setFactoryQuantityAt(p, quantity);
    if (allocated !== undefined) this.#factoryAlloc[p] = allocated;
  }

  // ---- distribution centre stock --------------------------------------------------------------

  /** Index of an active DC in the DC stock listing order, undefined when unknown or inactive. */
  activeDcIndex(code: string): number | undefined {
    return this.#dcIndex.get(code);
  }

  /** Number of DC stock records: every product has one in every active DC. */
  get dcRecordCount(): number {
    return this.#count * this.#dcCount;
  }

  /** The DC stock record at a flat index (position · active DC count + DC index). */
  dcRecordAt(index: number): DcStockRecord {
    const position = Math.floor(index / this.#dcCount);
    const d = index - position * this.#dcCount;
    const quantity = this.#dcQty[index]!;
    const allocated = this.#dcAlloc[index]!;
    const inbound = this.#created.has(position)
      ? { quantity: 0, allocated: 0 }
      : this.#seed.dcInbound(position, d);
    return {
      distribution_centre_code: ACTIVE_DC_CODES[d]!,
      sku: this.skuAt(position),
      platform_sku: this.platformSkuAt(position),
      stock_quantity: quantity,
      stock_quantity_allocated: allocated,
      stock_quantity_free: quantity - allocated,
      inbound_quantity: inbound.quantity,
      inbound_quantity_allocated: inbound.allocated,
      inbound_quantity_free: inbound.quantity - inbound.allocated,
    };
  }

  dcStock(dcCode: string, sku: string): DcStockRecord | undefined {
    const d = this.#dcIndex.get(dcCode);
    const p = this.positionOfSku(sku);
    if (d === undefined || p === undefined) return undefined;
    return this.dcRecordAt(p * this.#dcCount + d);
  }

  *allDcStock(): IterableIterator<DcStockRecord> {
    const n = this.dcRecordCount;
    for (let k = 0; k < n; k++) yield this.dcRecordAt(k);
  }

  /** Sets DC stock; a quantity below the allocation lowers the allocation to the quantity. */
  setDcQuantity(position: number, dcIndex: number, quantity: number): void {
    const k = position * this.#dcCount + dcIndex;
    this.#dcQty[k] = quantity;
    if (this.#dcAlloc[k]! > quantity) this.#dcAlloc[k] = quantity;
  }

  /** Test helper: set DC stock (and optionally the allocation) by DC code and SKU. */
  setDcStock(dcCode: string, sku: string, quantity: number, allocated?: number): void {
    const d = this.#dcIndex.get(dcCode);
    const p = this.positionOfSku(sku);
    if (d === undefined) throw new Error(`unknown or inactive distribution centre ${dcCode}`);
    if (p === undefined) throw new Error(`unknown sku ${sku}`);
    checkQuantity(quantity, allocated);
    this.setDcQuantity(p, d, quantity);
    if (allocated !== undefined) this.#dcAlloc[p * this.#dcCount + d] = allocated;
  }

  // ---- reference data -------------------------------------------------------------------------

  distributionCentres(): DistributionCentre[] {
    return DISTRIBUTION_CENTRES.map((d) => ({ ...d, site: { ...d.site } }));
  }

  sites(): Site[] {
    return SITES.map((s) => ({ ...s }));
  }

  taxRates(): TaxRate[] {
    return TAX_RATES.map((t) => ({ ...t }));
  }

  // ---- brands ---------------------------------------------------------------------------------

  brands(): Brand[] {
    return [...this.#brands.values()].map((b) => ({ ...b }));
  }

  brand(id: number): Brand | undefined {
    const b = this.#brands.get(id);
    return b && { ...b };
  }

  brandByName(name: string): Brand | undefined {
    const lower = name.toLowerCase();
    for (const b of this.#brands.values()) if (b.name.toLowerCase() === lower) return { ...b };
    return undefined;
  }

  /** Throws 422 already_exists when another brand has the name (case-insensitive). */
  addBrand(name: string, description: string | null): Brand {
    if (this.brandByName(name)) throw alreadyExists('name', `The brand ${name} already exists.`);
    const brand: Brand = { id: this.#nextBrandId++, name, description, image: null };
    this.#brands.set(brand.id, brand);
    return { ...brand };
  }

  updateBrand(id: number, name: string, description: string | null | undefined): Brand {
    const brand = this.#brands.get(id);
    if (!brand) throw notFound('id', `Brand ${id} not found.`);
    const other = this.brandByName(name);
    if (other && other.id !== id) throw alreadyExists('name', `The brand ${name} already exists.`);
    brand.name = name;
    if (description !== undefined) brand.description = description;
    return { ...brand };
  }

  deleteBrand(id: number): void {
    if (!this.#brands.delete(id)) throw notFound('id', `Brand ${id} not found.`);
  }

  // ---- shipments ------------------------------------------------------------------------------

  shipment(orderNumber: string): ShipmentRecord | undefined {
    const s = this.#shipments.get(orderNumber);
    return s && cloneShipment(s);
  }

  allShipments(): ShipmentRecord[] {
    return [...this.#shipments.values()].map(cloneShipment);
  }

  /** Test helper: add a shipment (defaults: due today(), pending, one item of the first product). */
  addShipment(input: NewShipment = {}): ShipmentRecord {
    const orderNumber = input.order_number ?? `ORD-${this.#nextOrder++}`;
    if (this.#shipments.has(orderNumber)) throw new Error(`shipment ${orderNumber} exists`);
    const status = input.status ?? 'pending';
    const at = new Date(this.#now()).toISOString();
    const items = (
      input.items ?? (this.#count > 0 ? [{ sku: this.skuAt(0), quantity: 1 }] : [])
    ).map((item) => {
      const p = this.positionOfSku(item.sku);
      return {
        sku: item.sku,
        platform_sku: p === undefined ? '' : this.platformSkuAt(p),
        name: p === undefined ? '' : this.nameAt(p),
        quantity: item.quantity,
      };
    });
    const record: ShipmentRecord = {
      order_number: orderNumber,
      status,
      ship_by: input.ship_by ?? this.#today(),
      distribution_centre_code: input.distribution_centre_code ?? ACTIVE_DC_CODES[0]!,
      site_code: 'UK',
      delivery: { name: 'Test Customer', city: 'London', postcode: 'SW1A 1AA', country_code: 'GB' },
      items,
      carrier: status === 'pending' ? null : 'DPD',
      tracking_number: status === 'pending' ? null : `TRK-${orderNumber}`,
      is_shipped: status !== 'pending',
      is_collected: status === 'collected',
      shipped_at: status === 'pending' ? null : at,
      collected_at: status === 'collected' ? at : null,
      created_at: at,
    };
    this.#shipments.set(orderNumber, record);
    return cloneShipment(record);
  }

  /**
   * pending → shipped (or collected when isCollected). A shipped or collected shipment answers
   * 409 already_shipped.
   */
  markShipped(
    orderNumber: string,
    carrier: string,
    trackingNumber: string,
    isCollected: boolean,
    at: string,
  ): ShipmentRecord {
    const s = this.#shipments.get(orderNumber);
    if (!s) throw notFound('order_number', `Shipment ${orderNumber} not found.`);
    if (s.is_shipped || s.is_collected) {
      throw conflict(
        'already_shipped',
        'order_number',
        `Shipment ${orderNumber} is already ${s.status}.`,
      );
    }
    s.carrier = carrier;
    s.tracking_number = trackingNumber;
    s.is_shipped = true;
    s.shipped_at = at;
    s.status = 'shipped';
    if (isCollected) {
      s.is_collected = true;
      s.collected_at = at;
      s.status = 'collected';
    }
    return cloneShipment(s);
  }

  /** pending or shipped → collected. A collected shipment answers 409 already_collected. */
  markCollected(
    orderNumber: string,
    carrier: string,
    trackingNumber: string,
    at: string,
  ): ShipmentRecord {
    const s = this.#shipments.get(orderNumber);
    if (!s) throw notFound('order_number', `Shipment ${orderNumber} not found.`);
    if (s.is_collected) {
      throw conflict(
        'already_collected',
        'order_number',
        `Shipment ${orderNumber} is already collected.`,
      );
    }
    s.carrier = carrier;
    s.tracking_number = trackingNumber;
    s.is_shipped = true;
    s.shipped_at ??= at;
    s.is_collected = true;
    s.collected_at = at;
    s.status = 'collected';
    return cloneShipment(s);
  }
}

function cloneShipment(s: ShipmentRecord): ShipmentRecord {
  return { ...s, delivery: { ...s.delivery }, items: s.items.map((i) => ({ ...i })) };
}

function checkQuantity(quantity: number, allocated: number | undefined): void {
  const ok = (n: number) => Number.isInteger(n) && n >= 0 && n <= MAX_QUANTITY;
  if (!ok(quantity))
    throw new HttpError(400, 'invalid_parameter', 'bad quantity', 'stock_quantity');
  if (allocated !== undefined && (!ok(allocated) || allocated > quantity)) {
    throw new HttpError(400, 'invalid_parameter', 'bad allocation', 'stock_quantity_allocated');
  }
}
