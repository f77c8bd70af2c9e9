import { createReadStream, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { profilesFileSchema } from '../../../src/config/profiles.ts';
import { collectFile } from '../../../src/inventory/ingest/collect.ts';
import { formatOf } from '../../../src/inventory/parse/records.ts';
import { readPlanFor } from '../../../src/inventory/validate/readPlan.ts';

/**
 * The sample exports under examples/erp/, read as the pipeline reads them (collectFile): the
 * profile chosen by name, the reader by extension, the kind told by the mapped header, rows mapped
 * and checked.
 */
const examples = new URL('../../../examples/erp/', import.meta.url);
const profiles = profilesFileSchema.parse(
  JSON.parse(readFileSync(new URL('profiles.json', examples), 'utf8')),
).profiles;

async function readExample(name: string) {
  const plan = readPlanFor(profiles, name);
  const c = await collectFile(createReadStream(new URL(name, examples)), {
    format: formatOf(name)!,
    maxSkuLength: 64,
    plan,
  });
  if (!c.ok) throw new Error(c.reason);
  const rows = [
    ...[...c.stock.values()].map((r) => ({
      line: r.line,
      dc: r.dc,
      sku: r.sku,
      quantity: r.quantity,
    })),
    ...c.rejected.map((r) => ({ line: r.line, rejected: r.reason })),
  ].sort((a, b) => a.line - b.line);
  return {
    profile: plan.profile?.match,
    dialect: c.dialect,
    kind: c.kind,
    ignored: c.ignoredColumns,
    clamped: c.clamped,
    rows,
  };
}

describe('examples/erp', () => {
  it('reads the semicolon Windows-1252 export with German headers and a title line', async () => {
    expect(await readExample('LAGER_20240501.TXT')).toEqual({
      profile: 'LAGER_*.TXT',
      dialect: { encoding: 'windows-1252', delimiter: ';', headerLine: 2 },
      kind: 'dc_stock',
      ignored: ['bezeichnung', 'größe'],
      clamped: 1,
      rows: [
        { line: 3, dc: 'DC-LON', sku: 'SKU-0000001', quantity: 1234 },
        { line: 4, dc: 'DC-LON', sku: 'SKU-0000002', quantity: 12 },
        { line: 5, dc: 'DC-MAN', sku: 'SKU-0000003', quantity: 0 },
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
      clamped: 0,
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
      clamped: 0,
      rows: [
        { line: 4, dc: 'DC-LON', sku: 'SKU-0000001', quantity: 40 },
        { line: 5, dc: 'DC-LON', sku: 'SKU-0000002', quantity: 7 },
        { line: 6, dc: 'DC-LON', sku: 'SKU-0000003', quantity: 10 },
      ],
    });
  });
});
