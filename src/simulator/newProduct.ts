import { invalidParameter } from './httpError.ts';
import type { ProductImage, SitePricing } from './model.ts';
import { currencyOf, DISTRIBUTION_CENTRES, type ProductSeed, SITES, TAX_RATES } from './seed.ts';

/** A new product's input and what is kept of it; seeded products' images and prices. */

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

/** What the store keeps of a created product (seeded ones are computed from the seed). */
export interface CreatedProduct {
  sku: string;
  name: string;
  brand: string;
  range: string | null;
  description: string;
  images: ProductImage[];
  sitePricing: SitePricing[];
}

/**
 * The parts of a new product that refer to reference data, checked: its site prices (a known
 * site and tax rate each, one price per site), its DC stock (active centres only, each once) and
 * its images (ids from `nextImageId`). Throws HttpError 400 naming the field at fault.
 */
export function checkNewProduct(
  input: NewProduct,
  nextImageId: () => number,
): {
  readonly sitePricing: SitePricing[];
  readonly dcStock: NonNullable<NewProduct['distribution_centre_stock']>;
  readonly images: ProductImage[];
} {
  const priced = new Set<string>();
  const sitePricing: SitePricing[] = (input.site_pricing ?? []).map((entry, i) => {
    const site = SITES.find((s) => s.code === entry.site_code);
    if (!site) throw invalidParameter(`site_pricing.${i}.site_code`, 'Unknown site code.');
    if (priced.has(site.code)) {
      throw invalidParameter(`site_pricing.${i}.site_code`, `Site ${site.code} is priced twice.`);
    }
    priced.add(site.code);
    if (!TAX_RATES.some((t) => t.id === entry.tax_rate_id)) {
      throw invalidParameter(`site_pricing.${i}.tax_rate_id`, 'Unknown tax rate id.');
    }
    return { site: { ...site }, price: entry.price, price_currency: entry.price_currency };
  });
  const dcStock = input.distribution_centre_stock ?? [];
  const stocked = new Set<string>();
  dcStock.forEach((entry, i) => {
    const field = `distribution_centre_stock.${i}.distribution_centre_code`;
    const dc = DISTRIBUTION_CENTRES.find((d) => d.code === entry.distribution_centre_code);
    if (!dc) throw invalidParameter(field, 'Unknown distribution centre.');
    if (!dc.is_active) throw invalidParameter(field, 'The distribution centre is not active.');
    if (stocked.has(dc.code)) throw invalidParameter(field, `${dc.code} is given twice.`);
    stocked.add(dc.code);
  });
  const images: ProductImage[] = (input.images ?? []).map((img, i) => ({
    id: nextImageId(),
    url: img.url,
    type: img.type ?? 'lifestyle',
    is_primary: img.is_primary ?? i === 0,
  }));
  return { sitePricing, dcStock, images };
}

/** A seeded product's images, computed from the seed. */
export function seededImages(seed: ProductSeed, position: number, sku: string): ProductImage[] {
  const lower = sku.toLowerCase();
  const out: ProductImage[] = [];
  for (let k = 0; k < seed.imageCount(position); k++) {
    out.push({
      id: (position + 1) * 10 + k,
      url: `https://cdn.example.com/products/${lower}/${k + 1}.jpg`,
      type: k === 0 ? 'packshot' : 'lifestyle',
      is_primary: k === 0,
    });
  }
  return out;
}

/** A seeded product's price on every site, computed from the seed. */
export function seededSitePricing(seed: ProductSeed, position: number): SitePricing[] {
  return SITES.map((site, i) => ({
    site: { ...site },
    price: (seed.priceMinor(position, i) / 100).toFixed(2),
    price_currency: currencyOf(site.code),
  }));
}
