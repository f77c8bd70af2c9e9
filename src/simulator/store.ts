/**
 * The simulator's in-memory state. Products live in parallel typed arrays indexed by position
 * (seeded products are computed from the seed, never stored as objects), so a million products
 * cost a few tens of megabytes and start in well under a second. Created products are appended.
 */

import { BrandBook } from './brandBook.ts';
import { alreadyExists, invalidParameter } from './httpError.ts';
import type {
  DcStockRecord,
  FactoryStockRecord,
  PlatformStatus,
  ProductDcStock,
  ProductDetail,
  ProductImage,
  ProductListItem,
  ProductScope,
  ProductStatus,
  ShipmentRecord,
  SitePricing,
} from './model.ts';
import {
  type CreatedProduct,
  checkNewProduct,
  type NewProduct,
  seededImages,
  seededSitePricing,
} from './newProduct.ts';
import { type PlatformSkuCodec, platformSkuCodec } from './platformSku.ts';
import { ACTIVE_DC_CODES, ProductSeed, parseSeededSku, SEED_BRANDS, seededSku } from './seed.ts';
import { type NewShipment, ShipmentBook } from './shipmentBook.ts';
import { checkQuantity, StockLevels } from './stockArrays.ts';

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

export type { NewProduct } from './newProduct.ts';
export type { NewShipment } from './shipmentBook.ts';

export class SimulatorStore {
  readonly #seed: ProductSeed;
  readonly #codec: PlatformSkuCodec;
  readonly #seeded: number;
  readonly #dcIndex = new Map(ACTIVE_DC_CODES.map((code, i) => [code, i]));
  #count: number;
  #capacity: number;
  #status: Uint8Array;
  #platformStatus: Uint8Array;
  readonly #stock: StockLevels;
  readonly #created = new Map<number, CreatedProduct>();
  readonly #createdBySku = new Map<string, number>();
  #nextImageId = 1_000_000_001;
  /** The brands (brandBook.ts). */
  readonly brands = new BrandBook(SEED_BRANDS);
  readonly #shipmentBook: ShipmentBook;

  constructor(options: StoreOptions) {
    const seed = new ProductSeed(options.seed);
    this.#seed = seed;
    this.#codec = platformSkuCodec(options.seed);
    const n = options.products;
    this.#seeded = n;
    this.#count = n;
    this.#capacity = n + 1024;
    this.#status = new Uint8Array(this.#capacity);
    this.#platformStatus = new Uint8Array(this.#capacity);
    this.#stock = new StockLevels(this.#capacity, seed, n);
    for (let i = 0; i < n; i++) {
      this.#status[i] = STATUSES.indexOf(seed.status(i));
      this.#platformStatus[i] = PLATFORM_STATUSES.indexOf(seed.platformStatus(i));
    }
    this.#shipmentBook = new ShipmentBook(this, {
      seed: options.seed,
      count: options.shipments,
      today: options.today,
      now: options.now,
    });
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
    if (!this.brands.byName(input.brand)) {
      throw invalidParameter('brand', `The brand ${input.brand} does not exist.`);
    }
    const { sitePricing, dcStock, images } = checkNewProduct(input, () => this.#nextImageId++);
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
    this.#stock.clear(p, input.factory_stock?.stock_quantity ?? 0);
    for (const entry of dcStock) {
      const d = this.#dcIndex.get(entry.distribution_centre_code)!;
      this.#stock.setDc(p * this.#stock.dcCount + d, entry.stock_quantity);
    }
    return this.detailAt(p);
  }

  #grow(): void {
    const capacity = this.#capacity * 2;
    const grow = (old: Uint8Array) => {
      const next = new Uint8Array(capacity);
      next.set(old);
      return next;
    };
    this.#status = grow(this.#status);
    this.#platformStatus = grow(this.#platformStatus);
    this.#stock.grow(capacity);
    this.#capacity = capacity;
  }

  #description(position: number): string {
    const created = this.#created.get(position);
    return created ? created.description : this.#seed.description(position);
  }

  #images(position: number): ProductImage[] {
    const created = this.#created.get(position);
    if (created) return created.images.map((i) => ({ ...i }));
    return seededImages(this.#seed, position, this.skuAt(position));
  }

  #sitePricing(position: number): SitePricing[] {
    const created = this.#created.get(position);
    if (created) return created.sitePricing.map((s) => ({ ...s, site: { ...s.site } }));
    return seededSitePricing(this.#seed, position);
  }

  #productDcStock(position: number): ProductDcStock[] {
    return ACTIVE_DC_CODES.map((code, d) => ({
      distribution_centre_code: code,
      stock_quantity: this.#stock.dc(position * this.#stock.dcCount + d).quantity,
    }));
  }

  // ---- factory stock --------------------------------------------------------------------------

  factoryQuantityAt(position: number): number {
    return this.#stock.factory(position).quantity;
  }

  factoryAllocatedAt(position: number): number {
    return this.#stock.factory(position).allocated;
  }

  factoryRecordAt(position: number): FactoryStockRecord {
    const { quantity, allocated } = this.#stock.factory(position);
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
    this.#stock.setFactory(position, quantity);
  }

  /** Test helper: set factory stock (and optionally the allocation) by SKU. */
  setFactoryStock(sku: string, quantity: number, allocated?: number): void {
    const p = this.positionOfSku(sku);
    if (p === undefined) throw new Error(`unknown sku ${sku}`);
    checkQuantity(quantity, allocated);
    this.#stock.setFactory(p, quantity, allocated);
  }

  // ---- distribution centre stock --------------------------------------------------------------

  /** Index of an active DC in the DC stock listing order, undefined when unknown or inactive. */
  activeDcIndex(code: string): number | undefined {
    return this.#dcIndex.get(code);
  }

  /** Number of DC stock records: every product has one in every active DC. */
  get dcRecordCount(): number {
    return this.#count * this.#stock.dcCount;
  }

  /** The DC stock record at a flat index (position · active DC count + DC index). */
  dcRecordAt(index: number): DcStockRecord {
    const position = Math.floor(index / this.#stock.dcCount);
    const d = index - position * this.#stock.dcCount;
    const { quantity, allocated } = this.#stock.dc(index);
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
    return this.dcRecordAt(p * this.#stock.dcCount + d);
  }

  *allDcStock(): IterableIterator<DcStockRecord> {
    const n = this.dcRecordCount;
    for (let k = 0; k < n; k++) yield this.dcRecordAt(k);
  }

  /** Sets DC stock; a quantity below the allocation lowers the allocation to the quantity. */
  setDcQuantity(position: number, dcIndex: number, quantity: number): void {
    this.#stock.setDc(position * this.#stock.dcCount + dcIndex, quantity);
  }

  /** Test helper: set DC stock (and optionally the allocation) by DC code and SKU. */
  setDcStock(dcCode: string, sku: string, quantity: number, allocated?: number): void {
    const d = this.#dcIndex.get(dcCode);
    const p = this.positionOfSku(sku);
    if (d === undefined) throw new Error(`unknown or inactive distribution centre ${dcCode}`);
    if (p === undefined) throw new Error(`unknown sku ${sku}`);
    checkQuantity(quantity, allocated);
    this.#stock.setDc(p * this.#stock.dcCount + d, quantity, allocated);
  }

  // ---- shipments (shipmentBook.ts) -----------------------------------------------------------

  shipment(orderNumber: string): ShipmentRecord | undefined {
    return this.#shipmentBook.get(orderNumber);
  }

  allShipments(): ShipmentRecord[] {
    return this.#shipmentBook.all();
  }

  /** Test helper: add a shipment (defaults: due today(), pending, one item of the first product). */
  addShipment(input: NewShipment = {}): ShipmentRecord {
    return this.#shipmentBook.add(input);
  }

  markShipped(...args: Parameters<ShipmentBook['markShipped']>): ShipmentRecord {
    return this.#shipmentBook.markShipped(...args);
  }

  markCollected(...args: Parameters<ShipmentBook['markCollected']>): ShipmentRecord {
    return this.#shipmentBook.markCollected(...args);
  }
}
