import {
  type BirthStock,
  type CatalogueReferences,
  isShortDescription,
  type ProductDraft,
  type SitePrice,
} from '../../domain/catalogue.ts';
import { type LocationMap, mapLocation } from '../../domain/stockRules.ts';
import { showValue } from '../parse/records.ts';
import { checkSku } from './fields.ts';
import { PRODUCT_FAMILY } from './kinds.ts';
import {
  currency,
  images,
  isBlank,
  optionalText,
  percent,
  taxRateId,
  twoPlaces,
  type ValueResult,
} from './productValues.ts';
import { parseQuantity, type QuantityOptions } from './quantity.ts';
import type { RowError, RowResult } from './rows.ts';

/**
 * One row of a products file (docs/products.md) checked and turned into a new product: the API's
 * flat fields, the images, one price per site from the `…@SITE` columns (or the API's
 * `site_pricing` array in a JSON item), and the stock at creation from `factory_stock` and
 * `stock@CENTRE` (or `distribution_centre_stock`). Pure; the portal's references are given.
 * The first fault rejects the row, naming the column and why.
 */
export interface ProductRowValue {
  readonly draft: ProductDraft;
  readonly stock: BirthStock;
  /** A description under 100 characters: accepted, counted (the platform cannot enrich it). */
  readonly shortDescription: boolean;
}

export interface ProductRowRules {
  readonly maxSkuLength: number;
  /** IMAGE_TYPE: the images' type where the row gives none. */
  readonly imageType: string;
  /** The profile's decimal mark, for prices and percents. */
  readonly decimal?: '.' | ',';
  /** The profile's quantity conventions, for the stock columns. */
  readonly quantity?: QuantityOptions;
  /** ERP location code → portal centre (the stock rules' `locations`), for `stock@…`. */
  readonly locations?: LocationMap;
  /** The portal's sites, tax rates and centres; undefined: codes not checked (a dry run). */
  readonly references: CatalogueReferences | undefined;
}

/** A site's or a centre's cells of one row, by the code after `@`. */
interface Families {
  readonly sites: Map<string, Record<string, unknown>>;
  readonly centres: Map<string, unknown>;
}

function families(fields: Readonly<Record<string, unknown>>): Families {
  const sites = new Map<string, Record<string, unknown>>();
  const centres = new Map<string, unknown>();
  for (const [key, value] of Object.entries(fields)) {
    const m = PRODUCT_FAMILY.exec(key);
    if (m === null) continue;
    const family = m[1]!.toLowerCase();
    const code = m[2]!.trim();
    if (family === 'stock') centres.set(code, value);
    else sites.set(code.toLowerCase(), { ...sites.get(code.toLowerCase()), code, [family]: value });
  }
  return { sites, centres };
}

/** A fault of the row, thrown from deep in its checks and caught once (validateProductRow). */
class RowFault extends Error {
  readonly error: RowError;

  constructor(error: RowError) {
    super(error.reason);
    this.error = error;
  }
}

export function validateProductRow(
  fields: Readonly<Record<string, unknown>>,
  rules: ProductRowRules,
): RowResult<ProductRowValue> {
  const sku = checkSku(fields.sku, rules.maxSkuLength);
  if (!sku.ok) return { ok: false, field: 'sku', reason: sku.reason, ...shown(fields.sku) };
  const key = `product:${sku.value}`;
  try {
    return { ok: true, row: productOf(sku.value, key, fields, rules) };
  } catch (err) {
    if (err instanceof RowFault) return { ok: false, ...err.error };
    throw err;
  }
}

function shown(value: unknown): { value?: string } {
  const v = showValue(value);
  return v === undefined ? {} : { value: v };
}

/** The value, or a RowFault naming the field. */
function take<T>(key: string, field: string, value: unknown, r: ValueResult<T>): T {
  if (r.ok) return r.value;
  throw new RowFault({ key, field, reason: r.reason, ...shown(value) });
}

function productOf(
  sku: string,
  key: string,
  fields: Readonly<Record<string, unknown>>,
  rules: ProductRowRules,
): ProductRowValue {
  const text = (field: string) => take(key, field, fields[field], optionalText(fields[field]));
  const name = text('name');
  if (name === undefined || name === '') {
    throw new RowFault({ key, field: 'name', reason: 'a product needs a name' });
  }
  const description = text('description');
  const brand = text('brand');
  const range = text('range');
  const imageList = take(
    key,
    'images',
    fields.images,
    images(fields.images, text('image_type'), rules.imageType),
  );
  const prices = sitePrices(key, fields, rules);
  const draft: ProductDraft = {
    sku,
    name,
    ...(description === undefined ? {} : { description }),
    ...(brand === undefined || brand === '' ? {} : { brand }),
    ...(range === undefined ? {} : { range }),
    ...(imageList === undefined ? {} : { images: imageList }),
    ...(prices.length === 0 ? {} : { site_pricing: prices }),
  };
  return {
    draft,
    stock: birthStock(key, fields, rules),
    shortDescription: isShortDescription(description),
  };
}

/** The prices by site: the `…@SITE` columns, or a JSON item's `site_pricing`. */
function sitePrices(
  key: string,
  fields: Readonly<Record<string, unknown>>,
  rules: ProductRowRules,
): SitePrice[] {
  const groups: Array<{ where: (f: string) => string; cells: Record<string, unknown> }> = [];
  for (const cells of families(fields).sites.values()) {
    groups.push({ where: (f) => `${f}@${cells.code}`, cells });
  }
  const listed = fields.site_pricing;
  if (Array.isArray(listed)) {
    listed.forEach((entry, i) => {
      const cells = entry !== null && typeof entry === 'object' ? lowerKeys(entry) : {};
      groups.push({ where: (f) => `site_pricing.${i}.${f}`, cells: { ...cells } });
    });
  } else if (!isBlank(listed)) {
    throw new RowFault({ key, field: 'site_pricing', reason: 'must be an array of prices' });
  }
  const out: SitePrice[] = [];
  const seen = new Set<string>();
  for (const { where, cells } of groups) {
    // An empty price means no price for that site: the group's other cells are not looked at.
    if (isBlank(cells.price)) continue;
    const given = String(cells.code ?? cells.site_code ?? '').trim();
    const site = rules.references === undefined ? given : rules.references.site(given);
    const field = where('price');
    if (site === undefined || site === '') {
      const sites = rules.references?.siteCodes.join(', ') ?? '';
      throw new RowFault({
        key,
        field,
        // Header names come lower-cased; site codes are written in capitals.
        reason: `${given === '' ? 'no site code' : `${given.toUpperCase()} is no site of the portal`} (sites: ${sites})`,
        ...shown(cells.price),
      });
    }
    if (seen.has(site.toLowerCase())) {
      throw new RowFault({ key, field, reason: `site ${site} is priced twice` });
    }
    seen.add(site.toLowerCase());
    out.push(sitePrice(key, site, where, cells, rules));
  }
  return out;
}

function sitePrice(
  key: string,
  site: string,
  where: (field: string) => string,
  cells: Record<string, unknown>,
  rules: ProductRowRules,
): SitePrice {
  const cell = <T>(f: string, check: (v: unknown) => ValueResult<T>) =>
    take(key, where(f), cells[f], check(cells[f]));
  const price = cell('price', (v) => twoPlaces(v, rules.decimal));
  const priceCurrency = cell('price_currency', currency);
  const taxRate = cell('tax_rate_id', taxRateId);
  if (rules.references !== undefined && !rules.references.taxRate(taxRate)) {
    throw new RowFault({
      key,
      field: where('tax_rate_id'),
      reason: 'unknown tax rate id',
      value: String(taxRate),
    });
  }
  const pct = (f: string) =>
    isBlank(cells[f]) ? undefined : cell(f, (v) => percent(v, rules.decimal));
  const preorder = pct('preorder_discount_percent');
  const factory = pct('factory_stock_discount_percent');
  return {
    site_code: site,
    price,
    price_currency: priceCurrency,
    tax_rate_id: taxRate,
    ...(preorder === undefined ? {} : { preorder_discount_percent: preorder }),
    ...(factory === undefined ? {} : { factory_stock_discount_percent: factory }),
  };
}

/** The stock at creation: `factory_stock`, `stock@CENTRE` (or the API's shapes in JSON). */
function birthStock(
  key: string,
  fields: Readonly<Record<string, unknown>>,
  rules: ProductRowRules,
): BirthStock {
  const quantity = (field: string, value: unknown) =>
    take(key, field, value, parseQuantity(value, rules.quantity ?? {}));
  let factoryValue = fields.factory_stock;
  if (factoryValue !== null && typeof factoryValue === 'object' && !Array.isArray(factoryValue)) {
    factoryValue = (factoryValue as Record<string, unknown>).stock_quantity;
  }
  const factory = isBlank(factoryValue) ? undefined : quantity('factory_stock', factoryValue);
  const cells: Array<{ field: string; code: unknown; value: unknown }> = [];
  for (const [code, value] of families(fields).centres) {
    cells.push({ field: `stock@${code}`, code, value });
  }
  const listed = fields.distribution_centre_stock;
  if (Array.isArray(listed)) {
    listed.forEach((entry, i) => {
      const e = entry !== null && typeof entry === 'object' ? lowerKeys(entry) : {};
      const field = `distribution_centre_stock.${i}`;
      cells.push({ field, code: e.distribution_centre_code, value: e.stock_quantity });
    });
  } else if (!isBlank(listed)) {
    throw new RowFault({ key, field: 'distribution_centre_stock', reason: 'must be an array' });
  }
  const dcs: Record<string, number> = {};
  for (const c of cells) {
    if (isBlank(c.value)) continue;
    const code = centreOf(key, c.field, c.code, rules);
    if (code in dcs) throw new RowFault({ key, field: c.field, reason: `${code} is given twice` });
    dcs[code] = quantity(c.field, c.value);
  }
  return factory === undefined ? { dcs } : { factory, dcs };
}

/** A centre's portal code: mapped by the stock rules' locations, then checked (when known). */
function centreOf(key: string, field: string, code: unknown, rules: ProductRowRules): string {
  const given =
    typeof code === 'string' ? code.trim() : typeof code === 'number' ? String(code) : '';
  if (given === '') throw new RowFault({ key, field, reason: 'no distribution centre code' });
  const located = String(mapLocation(given, locationsInAnyCase(rules.locations, given)).value);
  if (rules.references === undefined) return located;
  const centre = rules.references.centre(located);
  if (centre === undefined || !centre.active) {
    throw new RowFault({
      key,
      field,
      reason: centre === undefined ? 'unknown distribution centre' : 'inactive distribution centre',
      value: given,
    });
  }
  return centre.code;
}

/** The locations map entry for a code as a header gives it (lower-cased): compared in any case. */
function locationsInAnyCase(locations: LocationMap | undefined, code: string): LocationMap {
  if (locations === undefined) return {};
  const lower = code.toLowerCase();
  for (const [from, to] of Object.entries(locations)) {
    if (from.toLowerCase() === lower) return { [code]: to };
  }
  return {};
}

function lowerKeys(obj: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k.trim().toLowerCase()] = v;
  return out;
}
