import { conflict, notFound } from './httpError.ts';
import type { ShipmentRecord } from './model.ts';
import { ACTIVE_DC_CODES, seedShipments } from './seed.ts';

/** Input of addShipment: every field has a default. */
export interface NewShipment {
  order_number?: string;
  ship_by?: string;
  status?: ShipmentRecord['status'];
  distribution_centre_code?: string;
  items?: Array<{ sku: string; quantity: number }>;
}

/** What the shipments need of the product catalogue: the items of seeded and new shipments. */
export interface ShipmentCatalogue {
  readonly productCount: number;
  positionOfSku(sku: string): number | undefined;
  skuAt(position: number): string;
  platformSkuAt(position: number): string;
  nameAt(position: number): string;
}

/** The simulator's shipments by order number, and their ship and collect transitions. */
export class ShipmentBook {
  readonly #shipments = new Map<string, ShipmentRecord>();
  #nextOrder: number;
  readonly #today: () => string;
  readonly #now: () => number;
  readonly #catalogue: ShipmentCatalogue;

  /** The seeded shipments (seed.ts) of the catalogue's products, then those added. */
  constructor(
    catalogue: ShipmentCatalogue,
    opts: {
      readonly seed: number;
      readonly count: number;
      readonly today: () => string;
      readonly now: () => number;
    },
  ) {
    this.#catalogue = catalogue;
    this.#today = opts.today;
    this.#now = opts.now;
    const seeded = seedShipments({
      seed: opts.seed,
      count: opts.count,
      today: opts.today(),
      now: opts.now(),
      productCount: catalogue.productCount,
      item: (p) => ({
        sku: catalogue.skuAt(p),
        platform_sku: catalogue.platformSkuAt(p),
        name: catalogue.nameAt(p),
      }),
    });
    for (const s of seeded) this.#shipments.set(s.order_number, s);
    this.#nextOrder = 100001 + opts.count;
  }

  get(orderNumber: string): ShipmentRecord | undefined {
    const s = this.#shipments.get(orderNumber);
    return s && cloneShipment(s);
  }

  all(): ShipmentRecord[] {
    return [...this.#shipments.values()].map(cloneShipment);
  }

  /** Test helper: add a shipment (defaults: due today(), pending, one item of the first product). */
  add(input: NewShipment = {}): ShipmentRecord {
    const orderNumber = input.order_number ?? `ORD-${this.#nextOrder++}`;
    if (this.#shipments.has(orderNumber)) throw new Error(`shipment ${orderNumber} exists`);
    const status = input.status ?? 'pending';
    const at = new Date(this.#now()).toISOString();
    const c = this.#catalogue;
    const items = (
      input.items ?? (c.productCount > 0 ? [{ sku: c.skuAt(0), quantity: 1 }] : [])
    ).map((item) => {
      const p = c.positionOfSku(item.sku);
      return {
        sku: item.sku,
        platform_sku: p === undefined ? '' : c.platformSkuAt(p),
        name: p === undefined ? '' : c.nameAt(p),
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
