import { describe, expect, it } from 'vitest';
import {
  catalogueReferences,
  descriptionLength,
  isShortDescription,
} from '../../../src/domain/catalogue.ts';
import { detectKind, objectKind } from '../../../src/inventory/validate/kinds.ts';
import {
  type ProductRowRules,
  validateProductRow,
} from '../../../src/inventory/validate/productRow.ts';
import { percent, twoPlaces } from '../../../src/inventory/validate/productValues.ts';

/** The simulator's reference data: sites UK, IE, DE; tax rates 1–5; DC-BER inactive. */
const references = catalogueReferences({
  sites: ['UK', 'IE', 'DE'],
  taxRateIds: [1, 2, 3, 4, 5],
  centres: [
    { code: 'DC-LON', active: true },
    { code: 'DC-MAN', active: true },
    { code: 'DC-DUB', active: true },
    { code: 'DC-BER', active: false },
  ],
});
const rules: ProductRowRules = { maxSkuLength: 64, imageType: 'lifestyle', references };
const LONG =
  'A solid oak chair, oiled by hand, with a woven seat that is made to last for years.'.repeat(2);

/** A header's row: keys lower-cased as the readers give them. */
const row = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k.toLowerCase(), v]));

const check = (fields: Record<string, unknown>, r: ProductRowRules = rules) =>
  validateProductRow(row({ sku: 'NEW-1', name: 'Oak chair', ...fields }), r);

const reasonOf = (fields: Record<string, unknown>) => {
  const r = check(fields);
  if (r.ok) throw new Error(`accepted: ${JSON.stringify(r.row)}`);
  return { field: r.field, reason: r.reason, key: r.key };
};

describe('products files: the kind', () => {
  it('is told by sku and name, unless the file is a stock export that names its products', () => {
    expect(detectKind(['sku', 'name', 'brand', 'price@uk', 'stock@dc-lon', 'note'])).toEqual({
      ok: true,
      kind: 'products',
      ignored: ['note'],
    });
    expect(detectKind(['sku', 'name', 'stock_quantity'])).toMatchObject({
      ok: true,
      kind: 'factory_stock',
    });
    expect(detectKind(['sku', 'brand']).ok).toBe(false);
  });

  it('is claimed by a JSON item with a product’s own field', () => {
    expect(objectKind(['sku', 'name'])).toBe('products');
    expect(objectKind(['sku', 'site_pricing'])).toBe('products');
    expect(objectKind(['sku', 'price@uk'])).toBe('products');
    expect(objectKind(['sku', 'name', 'stock_quantity'])).toBe('factory_stock');
    expect(objectKind(['sku'])).toBe('factory_stock');
  });
});

describe('a products row', () => {
  it('becomes the POST /products body: flat fields, images, a price per site, stock at creation', () => {
    const r = check({
      description: `  ${LONG}  `,
      brand: ' Acme ',
      range: 'Living',
      images:
        'https://cdn.example.com/1.jpg | https://cdn.example.com/2.jpg  https://cdn.example.com/3.jpg',
      image_type: 'packshot',
      'price@UK': '19.9',
      'price_currency@UK': 'gbp',
      'tax_rate_id@UK': '1',
      'preorder_discount_percent@UK': '5',
      'factory_stock_discount_percent@UK': '',
      'price@IE': '',
      'price_currency@IE': 'EUR',
      factory_stock: '12',
      'stock@DC-LON': '3',
      'stock@dc-man': '',
    });
    expect(r).toEqual({
      ok: true,
      row: {
        draft: {
          sku: 'NEW-1',
          name: 'Oak chair',
          description: LONG,
          brand: 'Acme',
          range: 'Living',
          images: [
            { url: 'https://cdn.example.com/1.jpg', type: 'packshot', is_primary: true },
            { url: 'https://cdn.example.com/2.jpg', type: 'packshot', is_primary: false },
            { url: 'https://cdn.example.com/3.jpg', type: 'packshot', is_primary: false },
          ],
          site_pricing: [
            {
              site_code: 'UK',
              price: '19.90',
              price_currency: 'GBP',
              tax_rate_id: 1,
              preorder_discount_percent: '5.00',
            },
          ],
        },
        stock: { factory: 12, dcs: { 'DC-LON': 3 } },
        shortDescription: false,
      },
    });
  });

  it('takes a JSON item in the API’s body shape as it stands', () => {
    const r = validateProductRow(
      {
        sku: 'NEW-2',
        name: 'Lamp',
        brand: 'Lumen',
        images: [{ url: 'https://cdn.example.com/l.jpg', is_primary: true, type: 'lifestyle' }],
        site_pricing: [
          { site_code: 'DE', price: '49.00', price_currency: 'EUR', tax_rate_id: 4 },
          { site_code: 'IE', price: 52, price_currency: 'EUR', tax_rate_id: 3 },
        ],
        distribution_centre_stock: [{ distribution_centre_code: 'DC-DUB', stock_quantity: 6 }],
        factory_stock: { stock_quantity: 40 },
      },
      rules,
    );
    expect(r.ok && r.row.draft.site_pricing).toEqual([
      { site_code: 'DE', price: '49.00', price_currency: 'EUR', tax_rate_id: 4 },
      { site_code: 'IE', price: '52.00', price_currency: 'EUR', tax_rate_id: 3 },
    ]);
    expect(r.ok && r.row.stock).toEqual({ factory: 40, dcs: { 'DC-DUB': 6 } });
    expect(r.ok && r.row.draft.images).toHaveLength(1);
  });

  it('uses IMAGE_TYPE for images without a type', () => {
    const r = check({ images: 'https://cdn.example.com/a.jpg' }, { ...rules, imageType: 'studio' });
    expect(r.ok && r.row.draft.images).toEqual([
      { url: 'https://cdn.example.com/a.jpg', type: 'studio', is_primary: true },
    ]);
  });

  it('counts a description under 100 characters as the platform does: code points, ends trimmed', () => {
    expect(descriptionLength('  ñandú  ')).toBe(5);
    expect(descriptionLength('😀'.repeat(99))).toBe(99);
    expect(isShortDescription('😀'.repeat(99))).toBe(true);
    expect(isShortDescription(`${'é'.repeat(100)}   `)).toBe(false);
    expect(isShortDescription(undefined)).toBe(true);
    const r = check({ description: 'Short.' });
    expect(r.ok && r.row.shortDescription).toBe(true);
  });

  it.each([
    [{ name: '' }, 'name', 'a product needs a name'],
    [{ sku: 'X'.repeat(65) }, 'sku', 'longer than 64 characters'],
    [
      { 'price@FR': '10.00', 'price_currency@FR': 'EUR', 'tax_rate_id@FR': '1' },
      'price@FR',
      'FR is no site of the portal (sites: UK, IE, DE)',
    ],
    [
      { 'price@UK': '10.999', 'price_currency@UK': 'GBP', 'tax_rate_id@UK': '1' },
      'price@UK',
      'not a decimal with at most two places (decimal mark ".")',
    ],
    [
      { 'price@UK': '10', 'tax_rate_id@UK': '1' },
      'price_currency@UK',
      'a price needs its three-letter currency',
    ],
    [
      { 'price@UK': '10', 'price_currency@UK': 'POUND', 'tax_rate_id@UK': '1' },
      'price_currency@UK',
      'not a three-letter currency code',
    ],
    [
      { 'price@UK': '10', 'price_currency@UK': 'GBP', 'tax_rate_id@UK': '99' },
      'tax_rate_id@UK',
      'unknown tax rate id',
    ],
    [
      { 'price@UK': '10', 'price_currency@UK': 'GBP' },
      'tax_rate_id@UK',
      'a price needs its tax rate id',
    ],
    [
      {
        'price@UK': '10',
        'price_currency@UK': 'GBP',
        'tax_rate_id@UK': '1',
        'preorder_discount_percent@UK': '120',
      },
      'preorder_discount_percent@UK',
      'a percent above 100',
    ],
    [{ 'stock@DC-XYZ': '4' }, 'stock@DC-XYZ', 'unknown distribution centre'],
    [{ 'stock@DC-BER': '4' }, 'stock@DC-BER', 'inactive distribution centre'],
    [
      { 'stock@DC-LON': '2.5' },
      'stock@DC-LON',
      'has a fraction (decimal mark "."): quantities are whole',
    ],
    [{ factory_stock: '-1' }, 'factory_stock', 'not a whole number ≥ 0'],
    [
      { images: 'ftp://example.com/a.jpg' },
      'images',
      '"ftp://example.com/a.jpg" is not an http(s) URL',
    ],
  ])('rejects %j alone, naming %s', (fields, field, reason) => {
    const r = reasonOf(fields);
    expect({ field: r.field.toLowerCase(), reason: r.reason }).toEqual({
      field: field.toLowerCase(),
      reason,
    });
    if (field !== 'sku') expect(r.key).toBe('product:NEW-1');
  });

  it('leaves a site out when its price cell is empty, whatever its other cells hold', () => {
    const r = check({ 'price@DE': '', 'price_currency@DE': 'EUR', 'tax_rate_id@DE': '77' });
    expect(r.ok && r.row.draft.site_pricing).toBeUndefined();
    // Without a price, a cell under an unknown site is not looked at either.
    expect(check({ 'price@FR': ' ', 'price_currency@FR': 'EUR' }).ok).toBe(true);
  });

  it('maps an ERP location through the stock rules’ locations, in any case', () => {
    const r = check({ 'stock@wh-london': '8' }, { ...rules, locations: { 'WH-LONDON': 'DC-LON' } });
    expect(r.ok && r.row.stock.dcs).toEqual({ 'DC-LON': 8 });
  });

  it('reads amounts with the profile’s decimal mark', () => {
    const comma: ProductRowRules = { ...rules, decimal: ',' };
    const r = check(
      { 'price@UK': '1.234,5', 'price_currency@UK': 'GBP', 'tax_rate_id@UK': 2 },
      comma,
    );
    expect(r.ok && r.row.draft.site_pricing?.[0]?.price).toBe('1234.50');
  });

  it('does not check codes when no references are known (a dry run before the first read)', () => {
    const r = check(
      { 'price@XX': '1', 'price_currency@XX': 'GBP', 'tax_rate_id@XX': 42, 'stock@DC-XYZ': 1 },
      { ...rules, references: undefined },
    );
    expect(r.ok).toBe(true);
  });
});

describe('amounts and percents', () => {
  it.each([
    ['19.9', '19.90'],
    ['19', '19.00'],
    ['0019.05', '19.05'],
    ['1,234.50', '1234.50'],
    [19.99, '19.99'],
    [0.1 + 0.2, '0.30'],
    [7, '7.00'],
  ])('%j is %s', (value, text) => {
    expect(twoPlaces(value)).toEqual({ ok: true, value: text });
  });

  it.each(['19.999', '-1', '1,5', '12,34.5', 'abc', '', 19.999, -2, Number.NaN])(
    '%j is not an amount',
    (value) => {
      expect(twoPlaces(value).ok).toBe(false);
    },
  );

  it('a percent is at most 100', () => {
    expect(percent('100')).toEqual({ ok: true, value: '100.00' });
    expect(percent('100.01')).toEqual({ ok: false, reason: 'a percent above 100' });
  });
});
