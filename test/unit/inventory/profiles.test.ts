import { describe, expect, it } from 'vitest';
import {
  describeProfilesProblem,
  type Profile,
  profilesFileSchema,
} from '../../../src/config/profiles.ts';
import { detectKind } from '../../../src/inventory/validate/kinds.ts';
import {
  columnMapping,
  detectKindWithProfile,
  mapFields,
  mapHeader,
} from '../../../src/inventory/validate/mapping.ts';
import { chooseProfile, readPlanFor } from '../../../src/inventory/validate/readPlan.ts';

/** The contract's example file. */
const example = {
  profiles: [
    {
      match: 'LAGER_*.TXT',
      headerLine: 2,
      decimal: ',',
      negative: 'zero',
      columns: { sku: 'Artikelnr', distribution_centre_code: 'Lager', stock_quantity: 'Menge' },
    },
    {
      match: 'items-*.txt',
      kind: 'factory',
      absent: 'zero',
      columns: { sku: 'Item No.', stock_quantity: 'Available' },
    },
    {
      match: 'stock-DC-LON-*.csv',
      constants: { distribution_centre_code: 'DC-LON' },
      columns: { sku: 'Item', stock_quantity: 'Qty' },
    },
  ],
};

const profiles = (): Profile[] => profilesFileSchema.parse(example).profiles;

function problem(input: unknown): string {
  const result = profilesFileSchema.safeParse(input);
  if (result.success) throw new Error('expected a problem');
  return describeProfilesProblem(result.error, input);
}

describe('profiles file schema', () => {
  it('reads the contract example with its defaults', () => {
    const [lager, items, lon] = profiles();
    expect(lager).toMatchObject({
      encoding: 'auto',
      delimiter: 'auto',
      headerLine: 2,
      absent: 'keep',
    });
    expect(items).toMatchObject({
      kind: 'factory',
      decimal: '.',
      negative: 'reject',
      absent: 'zero',
    });
    expect(lon?.constants).toEqual({ distribution_centre_code: 'DC-LON' });
  });

  it.each([
    [
      { profiles: [{ match: 'a*', columns: { skux: 'x' } }] },
      /^profiles\[0\] \(match "a\*"\), columns\.skux: unknown field "skux"/,
    ],
    [
      { profiles: [{ match: 'a' }, { match: 'L*', headerLine: -1 }] },
      /^profiles\[1\] \(match "L\*"\), headerLine: must be at least 0$/,
    ],
    [
      { profiles: [{ match: 'a', delimiter: ';;' }] },
      /^profiles\[0\] \(match "a"\), delimiter: must be "auto" or one character/,
    ],
    [
      { profiles: [{ match: 'a', encoding: 'latin-9' }] },
      /^profiles\[0\] \(match "a"\), encoding: /,
    ],
    [
      { profiles: [{ match: 'a', columns: { sku: 'A', stock_quantity: ' a ' } }] },
      /columns\.stock_quantity: names the column "a" that sku names too/,
    ],
    [
      { profiles: [{ match: 'a', columns: { sku: 'A' }, constants: { sku: 'x' } }] },
      /constants\.sku: is both a column and a constant/,
    ],
    [{ profiles: [{ match: 'a', colums: {} }] }, /^profiles\[0\] \(match "a"\): .*colums/],
    [{ profiles: [{ headerLine: 2 }] }, /^profiles\[0\], match: /],
    [{ profiles: [{ match: '  ' }] }, /^profiles\[0\] \(match " {2}"\), match: must not be empty/],
    [{ profile: [] }, /profile/],
    [
      { profiles: [{ match: 'w', values: { 'not stocked': -1 } }] },
      /^profiles\[0\] \(match "w"\), values\.not stocked: must be at least 0$/,
    ],
    [
      { profiles: [{ match: 'w', values: { x: 'zero' } }] },
      /^profiles\[0\] \(match "w"\), values\.x: must be a whole number ≥ 0, "skip" or "keep"$/,
    ],
    [
      // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
      { profiles: [{ match: 'm', when: [{ column: 'status', equals: [], then: 'zero' }] }] },
      /^profiles\[0\] \(match "m"\), when\.0\.equals: must list at least one value$/,
    ],
    [
      // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
      { profiles: [{ match: 'm', when: [{ column: 'status', equals: ['0'], then: 'drop' }] }] },
      /^profiles\[0\] \(match "m"\), when\.0\.then: /,
    ],
    [
      { profiles: [{ match: 'm', duplicates: 'add' }] },
      /^profiles\[0\] \(match "m"\), duplicates: /,
    ],
    [
      { profiles: [{ match: 'm', fractions: 'ceil' }] },
      /^profiles\[0\] \(match "m"\), fractions: /,
    ],
    [
      { profiles: [{ match: 'i', headerLine: 0, columns: { sku: 'Item' } }] },
      /^profiles\[0\] \(match "i"\), columns\.sku: names a header column: headerLine 0 means the file has no header \(give a position or a letter\)$/,
    ],
    [
      { profiles: [{ match: 'i', columns: { sku: { name: 'Item', occurrence: 'first' } } }] },
      /^profiles\[0\] \(match "i"\), columns\.sku\.occurrence: must be "last" or a whole number from 1$/,
    ],
    [
      { profiles: [{ match: 'i', headerLine: 0, columns: { sku: 0 } }] },
      /^profiles\[0\] \(match "i"\), columns\.sku: a position counts from 1$/,
    ],
    [
      { profiles: [{ match: 'o', headerLine: 0, subtract: ['Reserved', 2] }] },
      /^profiles\[0\] \(match "o"\), subtract\.0: names a header column/,
    ],
    [
      { profiles: [{ match: 's', spread: { A: 'DC1' }, columns: { stock_quantity: 'Q' } }] },
      /^profiles\[0\] \(match "s"\), spread: gives stock_quantity from its columns; the profile must not map it too$/,
    ],
    [
      { profiles: [{ match: 's', kind: 'factory', spread: { A: 'DC1' } }] },
      /^profiles\[0\] \(match "s"\), spread: makes a DC file, and the profile says factory$/,
    ],
    [
      { profiles: [{ match: 'c', kind: 'confirmations', duplicates: 'sum' }] },
      /^profiles\[0\] \(match "c"\), duplicates: applies to stock files only/,
    ],
    [
      { profiles: [{ match: 'p', kind: 'products', subtract: ['Reserved'] }] },
      /^profiles\[0\] \(match "p"\), subtract: applies to stock files only, and the profile says products$/,
    ],
    [
      { profiles: [{ match: 'p', columns: { 'price@': 'Preis' } }] },
      /^profiles\[0\] \(match "p"\), columns\.price@: unknown field "price@"; fields are .*stock@DC$/,
    ],
  ])('names the profile and the field: %j', (input, expected) => {
    expect(problem(input)).toMatch(expected);
  });

  it('maps the fields of a products file, the per-site and per-centre families too', () => {
    const parsed = profilesFileSchema.parse({
      profiles: [
        {
          match: 'artikel-*.csv',
          kind: 'products',
          columns: {
            sku: 'Artikelnr',
            name: 'Bezeichnung',
            'price@DE': 'Preis',
            'stock@DC-BER': 'Lager Berlin',
          },
          constants: { 'price_currency@DE': 'EUR', 'tax_rate_id@DE': 4, brand: 'Hearth' },
        },
      ],
    });
    const mapping = columnMapping(parsed.profiles[0]!);
    expect(
      detectKindWithProfile(['artikelnr', 'bezeichnung', 'preis', 'lager berlin'], mapping),
    ).toEqual({ ok: true, kind: 'products', ignored: [] });
  });
});

describe('choosing a profile', () => {
  it('takes the first profile whose match fits the name, case-insensitively', () => {
    const list = profiles();
    expect(chooseProfile(list, 'LAGER_20240501.TXT')?.match).toBe('LAGER_*.TXT');
    expect(chooseProfile(list, 'lager_1.txt')?.match).toBe('LAGER_*.TXT');
    expect(chooseProfile(list, 'ITEMS-7.TXT')?.match).toBe('items-*.txt');
    expect(chooseProfile(list, 'stock-dc-lon-1.csv')?.match).toBe('stock-DC-LON-*.csv');
    expect(chooseProfile(list, 'stock.csv')).toBeUndefined();
    const both = profilesFileSchema.parse({
      profiles: [{ match: '*.csv', decimal: ',' }, { match: 'a.csv' }],
    });
    expect(chooseProfile(both.profiles, 'a.csv')?.decimal).toBe(',');
  });

  it('turns the profile into reader, quantity and mapping options', () => {
    const plan = readPlanFor(profiles(), 'LAGER_1.TXT');
    expect(plan.delimited).toEqual({ encoding: 'auto', delimiter: 'auto', headerLine: 2 });
    expect(plan.xlsx).toEqual({ headerLine: 2 });
    expect(plan.quantity).toEqual({ decimal: ',', negative: 'zero', fractions: 'reject' });
    expect(plan.absent).toBe('keep');
    expect(plan.duplicates).toBe('last');
    expect(plan.rulesFor(() => undefined)).toBeUndefined();
    expect(readPlanFor(profiles(), 'items-1.txt').absent).toBe('zero');
    expect(readPlanFor(profiles(), 'other.csv')).toEqual({
      profile: undefined,
      delimited: {},
      xlsx: {},
      quantity: {},
      mapping: undefined,
      absent: 'keep',
      duplicates: 'last',
      reads: [],
      rulesFor: expect.any(Function),
    });
  });
});

describe('column mapping', () => {
  const [lager, items, lon] = profiles();

  it('maps file columns to API fields, case and spaces ignored', () => {
    const mapping = columnMapping(lager!);
    const header = ['artikelnr', 'lager', 'menge', 'bezeichnung'];
    expect(mapHeader(header, mapping)).toEqual({
      columns: ['sku', 'distribution_centre_code', 'stock_quantity', 'bezeichnung'],
      missing: [],
    });
    expect(detectKindWithProfile(header, mapping)).toEqual({
      ok: true,
      kind: 'dc_stock',
      ignored: ['bezeichnung'],
    });
    expect(
      mapFields({ artikelnr: 'A', lager: 'DC-BER', menge: '1', bezeichnung: 'x' }, mapping),
    ).toEqual({
      sku: 'A',
      distribution_centre_code: 'DC-BER',
      stock_quantity: '1',
      bezeichnung: 'x',
    });
  });

  it('counts constants as columns: sku and quantity with a constant centre make a DC file', () => {
    const mapping = columnMapping(lon!);
    expect(detectKindWithProfile(['item', 'qty'], mapping)).toEqual({
      ok: true,
      kind: 'dc_stock',
      ignored: [],
    });
    expect(mapFields({ item: 'A', qty: '2', distribution_centre_code: 'DC-X' }, mapping)).toEqual({
      sku: 'A',
      stock_quantity: '2',
      distribution_centre_code: 'DC-LON',
    });
  });

  it('looks unmapped fields up by their own names and leaves out own-name columns of mapped fields', () => {
    const mapping = columnMapping({ columns: { stock_quantity: 'Menge' } });
    expect(mapHeader(['sku', 'menge', 'stock_quantity'], mapping).columns).toEqual([
      'sku',
      'stock_quantity',
    ]);
    expect(mapFields({ sku: 'A', menge: '3', stock_quantity: '9' }, mapping)).toEqual({
      sku: 'A',
      stock_quantity: '3',
    });
  });

  it('says which mapped column the header lacks', () => {
    const result = detectKindWithProfile(['artikelnr', 'lager', 'anzahl'], columnMapping(lager!));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/no columns naming a kind/);
    expect(!result.ok && result.reason).toMatch(
      /the profile maps stock_quantity to "Menge", which the header lacks/,
    );
  });

  it('takes the kind the profile tells when its columns are there', () => {
    const mapping = columnMapping(items!);
    // A DC column is there, but the profile says factory: it is ignored.
    expect(
      detectKindWithProfile(['item no.', 'available', 'distribution_centre_code'], mapping),
    ).toEqual({
      ok: true,
      kind: 'factory_stock',
      ignored: ['distribution_centre_code'],
    });
    const lacking = detectKindWithProfile(['item no.'], mapping);
    expect(!lacking.ok && lacking.reason).toMatch(
      /the profile says factory stock, but no column gives stock_quantity/,
    );
  });

  it('is detectKind without a profile', () => {
    for (const header of [
      ['sku', 'stock_quantity'],
      ['sku', 'qty'],
      ['order_number', 'carrier', 'tracking_number'],
    ]) {
      expect(detectKindWithProfile(header, undefined)).toEqual(detectKind(header));
    }
  });
});
