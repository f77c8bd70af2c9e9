import { createReadStream, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { profilesFileSchema } from '../../../src/config/profiles.ts';
import { ByteTap } from '../../../src/inventory/parse/byteTap.ts';
import { type Dialect, readDelimited } from '../../../src/inventory/parse/delimited.ts';
import { readerFormatOf } from '../../../src/inventory/parse/formats.ts';
import type { RecordEvent } from '../../../src/inventory/parse/records.ts';
import { readXlsx } from '../../../src/inventory/parse/xlsx.ts';
import { readPlanFor } from '../../../src/inventory/profiles.ts';
import { detectKindWithProfile, mapFields } from '../../../src/inventory/validate/mapping.ts';
import { validateStockRow } from '../../../src/inventory/validate/rows.ts';

/**
 * The sample exports under examples/erp/, read as the pipeline will read them: the profile chosen
 * by name, the reader by extension, the kind told by the mapped header, rows mapped and checked.
 */
const examples = new URL('../../../examples/erp/', import.meta.url);
const profiles = profilesFileSchema.parse(
  JSON.parse(readFileSync(new URL('profiles.json', examples), 'utf8')),
).profiles;

async function readExample(name: string) {
  const plan = readPlanFor(profiles, name);
  const source = createReadStream(new URL(name, examples));
  const tap = new ByteTap();
  let dialect: Dialect | undefined;
  const reader =
    readerFormatOf(name) === 'xlsx'
      ? readXlsx(source, tap, plan.xlsx)
      : readDelimited(source, tap, { ...plan.delimited, onDialect: (d) => (dialect = d) });
  const events: RecordEvent[] = [];
  for await (const batch of reader) events.push(...batch);
  const header = events.find((e) => e.type === 'columns');
  if (header?.type !== 'columns') throw new Error('no header');
  const kind = detectKindWithProfile(header.columns, plan.mapping);
  if (!kind.ok) throw new Error(kind.reason);
  const stock = kind.kind;
  if (stock === 'shipment_confirmations') throw new Error('not stock');
  const rows = events.flatMap((e) => {
    if (e.type !== 'record') return [];
    const fields = plan.mapping ? mapFields(e.fields, plan.mapping) : e.fields;
    const row = validateStockRow(stock, fields, { maxSkuLength: 64, quantity: plan.quantity });
    return [{ line: e.line, ...(row.ok ? row.row : { rejected: row.reason }) }];
  });
  return { profile: plan.profile?.match, dialect, kind: kind.kind, ignored: kind.ignored, rows };
}

describe('examples/erp', () => {
  it('reads the semicolon Windows-1252 export with German headers and a title line', async () => {
    expect(await readExample('LAGER_20240501.TXT')).toEqual({
      profile: 'LAGER_*.TXT',
      dialect: { encoding: 'windows-1252', delimiter: ';', headerLine: 2 },
      kind: 'dc_stock',
      ignored: ['bezeichnung', 'größe'],
      rows: [
        { line: 3, dc: 'DC-LON', sku: 'SKU-0000001', quantity: 1234 },
        { line: 4, dc: 'DC-LON', sku: 'SKU-0000002', quantity: 12 },
        { line: 5, dc: 'DC-MAN', sku: 'SKU-0000003', quantity: 0, clamped: true },
        { line: 6, rejected: 'has a fraction (decimal mark ","): quantities are whole' },
      ],
    });
  });

  it("reads Excel's Unicode text (UTF-16LE, TABs) as a factory file", async () => {
    expect(await readExample('items-20240501.txt')).toEqual({
      profile: 'items-*.txt',
      dialect: { encoding: 'utf-16le', delimiter: '\t', headerLine: 1 },
      kind: 'factory_stock',
      ignored: ['description'],
      rows: [
        { line: 2, dc: '', sku: 'SKU-0000001', quantity: 120 },
        { line: 3, dc: '', sku: 'SKU-0000002', quantity: 0 },
        { line: 4, dc: '', sku: 'SKU-0000005', quantity: 1500 },
      ],
    });
  });

  it('reads the workbook with its header on row 3 and a constant centre', async () => {
    expect(await readExample('stock-DC-LON-20240501.xlsx')).toEqual({
      profile: 'stock-DC-LON-*.xlsx',
      dialect: undefined,
      kind: 'dc_stock',
      ignored: ['description'],
      rows: [
        { line: 4, dc: 'DC-LON', sku: 'SKU-0000001', quantity: 40 },
        { line: 5, dc: 'DC-LON', sku: 'SKU-0000002', quantity: 7 },
        { line: 6, dc: 'DC-LON', sku: 'SKU-0000003', quantity: 10 },
      ],
    });
  });
});
