/**
 * The simulator's seed: fixed reference data (exported so tests elsewhere can use it) and the
 * deterministic per-product attributes. Everything here is a pure function of (seed, position):
 * the same seed and sizes always give the same data.
 */
import type {
  Brand,
  DistributionCentre,
  PlatformStatus,
  ProductStatus,
  ShipmentRecord,
  ShipmentStatus,
  Site,
  TaxRate,
} from './model.ts';
import { hash32, mulberry32 } from './prng.ts';

export const DEFAULT_EMAIL = 'supplier@example.com';
export const DEFAULT_PASSWORD = 'demo-password';
export const DEFAULT_SEED = 1;
export const DEFAULT_PRODUCTS = 1000;
export const DEFAULT_SHIPMENTS = 20;

export const SITES: readonly Site[] = [
  { code: 'UK', name: 'United Kingdom' },
  { code: 'IE', name: 'Ireland' },
  { code: 'DE', name: 'Germany' },
];
export const SITE_CODES: readonly string[] = SITES.map((s) => s.code);

const UK = SITES[0]!;
const IE = SITES[1]!;
const DE = SITES[2]!;

export const DISTRIBUTION_CENTRES: readonly DistributionCentre[] = [
  {
    code: 'DC-LON',
    name: 'London Distribution Centre',
    site: UK,
    is_supplier_dc: false,
    is_fulfillment_centre: true,
    is_warehouse: true,
    is_active: true,
    leadtime_days: 1,
    cutoff_time: '14:00:00',
  },
  {
    code: 'DC-MAN',
    name: 'Manchester Supplier Warehouse',
    site: UK,
    is_supplier_dc: true,
    is_fulfillment_centre: true,
    is_warehouse: true,
    is_active: true,
    leadtime_days: 2,
    cutoff_time: '12:00:00',
  },
  {
    code: 'DC-DUB',
    name: 'Dublin Distribution Centre',
    site: IE,
    is_supplier_dc: false,
    is_fulfillment_centre: true,
    is_warehouse: true,
    is_active: true,
    leadtime_days: 2,
    cutoff_time: '13:30:00',
  },
  {
    code: 'DC-BER',
    name: 'Berlin Distribution Centre (closed)',
    site: DE,
    is_supplier_dc: false,
    is_fulfillment_centre: false,
    is_warehouse: true,
    is_active: false,
    leadtime_days: 3,
    cutoff_time: '11:00:00',
  },
];
export const DC_CODES: readonly string[] = DISTRIBUTION_CENTRES.map((d) => d.code);
/** Active centres, in the order their stock is listed. */
export const ACTIVE_DC_CODES: readonly string[] = DISTRIBUTION_CENTRES.filter(
  (d) => d.is_active,
).map((d) => d.code);
/** The one centre that exists but is not active: stock updates for it fail per item. */
export const INACTIVE_DC_CODE = 'DC-BER';

export const TAX_RATES: readonly TaxRate[] = [
  taxRate(1, 'VAT Standard', '20.00', 'GB', null),
  taxRate(2, 'VAT Reduced', '5.00', 'GB', null),
  taxRate(3, 'VAT Standard', '23.00', 'IE', null),
  taxRate(4, 'MwSt Standard', '19.00', 'DE', null),
  taxRate(5, 'Sales Tax', '7.25', 'US', 'CA'),
];
export const TAX_RATE_IDS: readonly number[] = TAX_RATES.map((t) => t.id);

/** Brands present at start; ids 1..n. */
export const SEED_BRANDS: readonly Brand[] = [
  { id: 1, name: 'Northwind', description: 'Solid wood furniture.', image: null },
  {
    id: 2,
    name: 'Oak & Iron',
    description: 'Industrial style.',
    image: 'https://cdn.example.com/brands/2.png',
  },
  { id: 3, name: 'Lumen', description: null, image: null },
  { id: 4, name: 'Hearth', description: 'Home textiles.', image: null },
  { id: 5, name: 'Parcel Co', description: null, image: 'https://cdn.example.com/brands/5.png' },
];

const CURRENCY_BY_SITE: Record<string, string> = { UK: 'GBP', IE: 'EUR', DE: 'EUR' };
const ADJECTIVES = [
  'Classic',
  'Modern',
  'Rustic',
  'Compact',
  'Deluxe',
  'Nordic',
  'Vintage',
  'Urban',
];
const MATERIALS = ['Oak', 'Walnut', 'Steel', 'Velvet', 'Linen', 'Marble', 'Rattan', 'Glass'];
const NOUNS = [
  'Chair',
  'Table',
  'Lamp',
  'Sofa',
  'Shelf',
  'Rug',
  'Mirror',
  'Bench',
  'Desk',
  'Stool',
];
const RANGES = ['Essentials', 'Signature', 'Outdoor', 'Studio'];
const DECLINED_REASONS = [
  'Images do not meet the platform guidelines.',
  'Description is shorter than 100 characters.',
  'Duplicate of an existing listing.',
];

/** The supplier SKU of the seeded product at a position: 'SKU-0000001' for position 0. */
export function seededSku(position: number): string {
  return `SKU-${String(position + 1).padStart(7, '0')}`;
}

/** The position a seeded SKU stands for, or undefined when the text is not in the seeded form. */
export function parseSeededSku(sku: string): number | undefined {
  if (sku.length < 11 || !sku.startsWith('SKU-')) return undefined;
  const n = Number(sku.slice(4));
  if (!Number.isInteger(n) || n < 1 || seededSku(n - 1) !== sku) return undefined;
  return n - 1;
}

/** Deterministic attributes of a seeded product. */
export class ProductSeed {
  readonly seed: number;
  constructor(seed: number) {
    this.seed = seed;
  }

  h(position: number, salt: number): number {
    return hash32(this.seed, position, salt);
  }

  name(position: number): string {
    const h = this.h(position, 1);
    return `${pick(ADJECTIVES, h)} ${pick(MATERIALS, h >>> 8)} ${pick(NOUNS, h >>> 16)} ${position + 1}`;
  }

  brand(position: number): string {
    return pick(SEED_BRANDS, this.h(position, 2)).name;
  }

  range(position: number): string {
    return pick(RANGES, this.h(position, 3));
  }

  /** 80% active, 8% pending, 7% inactive, 5% declined. */
  platformStatus(position: number): PlatformStatus {
    const r = this.h(position, 4) % 100;
    if (r < 80) return 'active';
    if (r < 88) return 'pending';
    if (r < 95) return 'inactive';
    return 'declined';
  }

  /** 85% active, 10% inactive, 5% pending. */
  status(position: number): ProductStatus {
    const r = this.h(position, 5) % 100;
    if (r < 85) return 'active';
    if (r < 95) return 'inactive';
    return 'pending';
  }

  declinedReason(position: number): string {
    return pick(DECLINED_REASONS, this.h(position, 6));
  }

  /** One product in ten has a description shorter than the 100 characters needed for enrichment. */
  description(position: number): string {
    const name = this.name(position);
    if (this.h(position, 7) % 10 === 0) return `${name}.`;
    return `${name} from the ${this.range(position)} range by ${this.brand(position)}. Made to last, easy to assemble, and backed by a two-year warranty on all parts and finishes.`;
  }

  imageCount(position: number): number {
    return 1 + (this.h(position, 8) % 3);
  }

  /** Price in minor units for a site. */
  priceMinor(position: number, siteIndex: number): number {
    return (5 + (this.h(position, 9) % 500)) * 100 + 99 + siteIndex * 100;
  }

  /** Factory stock: about 5% zero, the rest 1..999; a third with an allocation ≤ quantity. */
  factoryStock(position: number): { quantity: number; allocated: number } {
    const h = this.h(position, 10);
    const quantity = h % 20 === 0 ? 0 : 1 + ((h >>> 5) % 999);
    const allocated = (h >>> 16) % 3 === 0 ? Math.floor(quantity * (((h >>> 20) % 50) / 100)) : 0;
    return { quantity, allocated };
  }

  /** Stock of a product in an active DC (by its index among active DCs). */
  dcStock(position: number, dcIndex: number): { quantity: number; allocated: number } {
    const h = this.h(position, 11 + dcIndex);
    const quantity = h % 4 === 0 ? 0 : (h >>> 3) % 200;
    const allocated = (h >>> 12) % 5 === 0 ? Math.floor(quantity / 4) : 0;
    return { quantity, allocated };
  }

  /** Inbound stock (read-only in v1): most products have none. */
  dcInbound(position: number, dcIndex: number): { quantity: number; allocated: number } {
    const h = this.h(position, 21 + dcIndex);
    if (h % 5 !== 0) return { quantity: 0, allocated: 0 };
    const quantity = 10 + ((h >>> 4) % 90);
    return { quantity, allocated: (h >>> 12) % 2 === 0 ? Math.floor(quantity / 2) : 0 };
  }
}

function pick<T>(list: readonly T[], h: number): T {
  return list[h % list.length]!;
}

function taxRate(
  id: number,
  name: string,
  rate: string,
  country: string,
  state: string | null,
): TaxRate {
  return {
    id,
    name,
    rate,
    country_code: country,
    state_code: state,
    display_name: `${name} (${rate}%)`,
  };
}

export function currencyOf(siteCode: string): string {
  return CURRENCY_BY_SITE[siteCode] ?? 'GBP';
}

/** 'YYYY-MM-DD' shifted by whole days. */
export function addDays(day: string, days: number): string {
  const t = Date.parse(`${day}T00:00:00Z`) + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

export interface ShipmentSeedInput {
  seed: number;
  count: number;
  today: string;
  now: number;
  productCount: number;
  item(position: number): { sku: string; platform_sku: string; name: string };
}

/**
 * Shipments relative to `today`. Of every 20: 12 due today and pending, 1 overdue (due yesterday,
 * pending, so not ready-to-ship), 2 due tomorrow, 1 due in three days, 2 shipped today, 2
 * collected. Order numbers are 'ORD-100001', 'ORD-100002', …
 */
export function seedShipments(input: ShipmentSeedInput): ShipmentRecord[] {
  const random = mulberry32(hash32(input.seed, 0x5417));
  const carriers = ['DPD', 'Royal Mail', 'DHL', 'UPS'];
  const cities = [
    ['London', 'SW1A 1AA', 'GB'],
    ['Leeds', 'LS1 4AP', 'GB'],
    ['Dublin', 'D02 X285', 'IE'],
    ['Cork', 'T12 R2NC', 'IE'],
  ] as const;
  const names = ['A. Patel', 'B. Murphy', 'C. Schmidt', 'D. Jones', 'E. Walsh', 'F. Okafor'];
  const out: ShipmentRecord[] = [];
  for (let k = 0; k < input.count; k++) {
    const slot = k % 20;
    let dueIn = 0;
    let status: ShipmentStatus = 'pending';
    if (slot === 12) dueIn = -1;
    else if (slot === 13 || slot === 14) dueIn = 1;
    else if (slot === 15) dueIn = 3;
    else if (slot === 16 || slot === 17) status = 'shipped';
    else if (slot >= 18) {
      status = 'collected';
      dueIn = slot === 18 ? -1 : 0;
    }
    const city = cities[Math.floor(random() * cities.length)]!;
    const dc = city[2] === 'IE' ? 'DC-DUB' : random() < 0.5 ? 'DC-LON' : 'DC-MAN';
    const items = [];
    const lines = input.productCount === 0 ? 0 : 1 + Math.floor(random() * 3);
    for (let j = 0; j < lines; j++) {
      const position = Math.floor(random() * input.productCount);
      items.push({ ...input.item(position), quantity: 1 + Math.floor(random() * 3) });
    }
    const orderNumber = `ORD-${100001 + k}`;
    const done = status !== 'pending';
    const carrier = done ? carriers[Math.floor(random() * carriers.length)]! : null;
    const at = new Date(input.now - 3_600_000).toISOString();
    out.push({
      order_number: orderNumber,
      status,
      ship_by: addDays(input.today, dueIn),
      distribution_centre_code: dc,
      site_code: city[2] === 'IE' ? 'IE' : 'UK',
      delivery: {
        name: names[Math.floor(random() * names.length)]!,
        city: city[0],
        postcode: city[1],
        country_code: city[2],
      },
      items,
      carrier,
      tracking_number: done ? `TRK${String(hash32(input.seed, k, 77)).padStart(10, '0')}` : null,
      is_shipped: done,
      is_collected: status === 'collected',
      shipped_at: done ? at : null,
      collected_at: status === 'collected' ? at : null,
      created_at: new Date(
        Date.parse(`${addDays(input.today, dueIn - 2)}T09:00:00Z`),
      ).toISOString(),
    });
  }
  return out;
}

/** Copies of the reference data, as the API lists it (/distribution-centres, /sites, /tax-rates). */
export const referenceData = {
  distributionCentres: (): DistributionCentre[] =>
    DISTRIBUTION_CENTRES.map((d) => ({ ...d, site: { ...d.site } })),
  sites: (): Site[] => SITES.map((s) => ({ ...s })),
  taxRates: (): TaxRate[] => TAX_RATES.map((t) => ({ ...t })),
};
