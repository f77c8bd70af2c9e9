/**
 * The simulator's in-memory state. Products live in parallel typed arrays indexed by position
 * (seeded products are computed from the seed, never stored as objects), so a million products
 * cost a few tens of megabytes and start in well under a second. Created products are appended.
 */

import { BrandBook } from './brandBook.ts';
import { alreadyExists, invalidParameter, notFound } from './httpError.ts';
import type {
  DcStockRecord,
  FactoryStockRecord,
  PlatformStatus,
  ProductDcStock,
  ProductDetail,
  ProductListItem,
  ProductScope,
  ProductStatus,
  ShipmentRecord,
} from './model.ts';
import { checkNewProduct, type NewProduct } from './newProduct.ts';
import { type PlatformSkuCodec, platformSkuCodec } from './platformSku.ts';
import { ProductBook, type ReviewPolicy, type ReviewRecord } from './productBook.ts';
import type { ReviewDecision } from './reviewRule.ts';
import { ACTIVE_DC_CODES, ProductSeed, parseSeededSku, SEED_BRANDS } from './seed.ts';
import { type NewShipment, ShipmentBook } from './shipmentBook.ts';
import { checkQuantity, StockLevels } from './stockArrays.ts';

export interface StoreOptions {
  seed: number;
  products: number;
  shipments: number;
  /** 'YYYY-MM-DD' the simulator calls today; seeded shipments are relative to its value at start. */
  today: () => string;
  /** Clock in ms since the epoch, for timestamps and the review of new products. */
  now: () => number;
  /** How new products are reviewed (productBook.ts). */
  review: ReviewPolicy;
}

export type { NewProduct } from './newProduct.ts';
export type { ReviewMode, ReviewPolicy, ReviewRecord } from './productBook.ts';
export type { ReviewDecision } from './reviewRule.ts';
export type { NewShipment } from './shipmentBook.ts';

export class SimulatorStore {
  readonly #seed: ProductSeed;
  readonly #codec: PlatformSkuCodec;
  readonly #seeded: number;
  readonly #dcIndex = new Map(ACTIVE_DC_CODES.map((code, i) => [code, i]));
  #count: number;
  #capacity: number;
  readonly #stock: StockLevels;
  /** Every product's statuses; the products created through the API and their review. */
  readonly #book: ProductBook;
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
    this.#book = new ProductBook({ seed, seeded: n, now: options.now, policy: options.review });
    this.#stock = new StockLevels(this.#capacity, seed, n);
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
    return this.#book.sku(position);
  }

  platformSkuAt(position: number): string {
    return this.#codec.format(position);
  }

  nameAt(position: number): string {
    return this.#book.name(position);
  }

  /** Supplier-facing status; a created product's review is applied here when it is due. */
  statusAt(position: number): ProductStatus {
    return this.#book.status(position);
  }

  platformStatusAt(position: number): PlatformStatus {
    return this.#book.platformStatus(position);
  }

  declinedReasonAt(position: number): string | null {
    return this.#book.declinedReason(position);
  }

  /** Position of a product by its supplier SKU. */
  positionOfSku(sku: string): number | undefined {
    const created = this.#book.positionOf(sku);
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
    const item: ProductListItem & Record<string, unknown> = {
      sku: this.skuAt(position),
      platform_sku: this.platformSkuAt(position),
      name: this.nameAt(position),
      status: this.statusAt(position),
      platform_status: this.platformStatusAt(position),
      declined_reason: this.declinedReasonAt(position),
    };
    if (!scopes || scopes.size === 0) return item;
    if (scopes.has('images')) item.images = this.#book.images(position);
    if (scopes.has('variants')) item.variants = [];
    if (scopes.has('description')) item.description = this.#book.description(position);
    if (scopes.has('site_pricing')) item.site_pricing = this.#book.sitePricing(position);
    if (scopes.has('distribution_centre_stock'))
      item.distribution_centre_stock = this.#productDcStock(position);
    if (scopes.has('factory_stock')) item.factory_stock = this.factoryRecordAt(position);
    if (scopes.has('inbound_shipments')) item.inbound_shipments = [];
    return item;
  }

  detailAt(position: number): ProductDetail {
    return {
      ...(this.listItemAt(position) as unknown as ProductListItem),
      brand: this.#book.brand(position),
      range: this.#book.range(position),
      description: this.#book.description(position),
      images: this.#book.images(position),
      site_pricing: this.#book.sitePricing(position),
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
   * Creates a product (status pending, platform_status inactive), sets the stock it carries and
   * starts its review. Throws HttpError 422 for a duplicate SKU and 400 for an unknown brand or
   * reference; nothing is kept then. The product carries its brand's name as the brand is spelt.
   */
  addProduct(input: NewProduct): ProductDetail {
    if (this.positionOfSku(input.sku) !== undefined) {
      throw alreadyExists('sku', `A product with sku ${input.sku} already exists.`);
    }
    const brand = this.brands.byName(input.brand);
    if (!brand) throw invalidParameter('brand', `The brand ${input.brand} does not exist.`);
    const { sitePricing, dcStock, images } = checkNewProduct(input, () => this.#nextImageId++);
    if (this.#count === this.#capacity) this.#grow();
    const p = this.#count++;
    this.#book.add(p, {
      sku: input.sku,
      name: input.name,
      brand: brand.name,
      range: input.range ?? null,
      description: input.description ?? '',
      images,
      sitePricing,
    });
    this.#stock.clear(p, input.factory_stock?.stock_quantity ?? 0);
    for (const entry of dcStock) {
      const d = this.#dcIndex.get(entry.distribution_centre_code)!;
      this.#stock.setDc(p * this.#stock.dcCount + d, entry.stock_quantity);
    }
    const created = this.detailAt(p);
    this.#book.startReview(p);
    return created;
  }

  #grow(): void {
    this.#capacity *= 2;
    this.#stock.grow(this.#capacity);
  }

  // ---- the platform's review (productBook.ts, reviewRule.ts) ----------------------------------

  /**
   * Decides a product's review as the platform would: `active`, or `declined` with a reason (a
   * default one when none is given). Any product, created or seeded; a decided one can be decided
   * again. Unknown → HttpError 404.
   */
  reviewProduct(
    skuOrPlatformSku: string,
    decision: ReviewDecision,
    reason?: string | null,
  ): ProductDetail {
    const p = this.#known(skuOrPlatformSku);
    this.#book.decide(p, decision, reason ?? null);
    return this.detailAt(p);
  }

  /**
   * Holds the review of a created product until an admin decides it (`held` false: releases it to
   * the automatic review). Unknown or seeded → 404; already decided → 409.
   */
  holdReview(skuOrPlatformSku: string, held = true): ReviewRecord {
    const p = this.#created(skuOrPlatformSku);
    this.#book.hold(p, held);
    return this.#book.review(p);
  }

  /** Where the review of a created product stands; undefined for a seeded or unknown one. */
  review(skuOrPlatformSku: string): ReviewRecord | undefined {
    const p = this.positionOf(skuOrPlatformSku);
    return p === undefined || p < this.#seeded ? undefined : this.#book.review(p);
  }

  get reviewPolicy(): ReviewPolicy {
    return this.#book.policy;
  }

  /** Changes how products created from now on are reviewed; a bad value → RangeError. */
  setReviewPolicy(policy: Partial<ReviewPolicy>): ReviewPolicy {
    return this.#book.setPolicy(policy);
  }

  #known(skuOrPlatformSku: string): number {
    const p = this.positionOf(skuOrPlatformSku);
    if (p === undefined) throw notFound('sku', `Product ${skuOrPlatformSku} not found.`);
    return p;
  }

  #created(skuOrPlatformSku: string): number {
    const p = this.#known(skuOrPlatformSku);
    if (p < this.#seeded) {
      throw notFound('sku', `Product ${skuOrPlatformSku} was not created through the API.`);
    }
    return p;
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
    const inbound =
      position >= this.#seeded ? { quantity: 0, allocated: 0 } : this.#seed.dcInbound(position, d);
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
