import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profilesFileSchema } from '../../../src/config/profiles.ts';
import { type IngestEnv, makeIngestEnv } from '../helpers.ts';
import { ENCODINGS, encode, quote } from './helpers.ts';

/**
 * End to end, on real files: stock rows written in any supported dialect and encoding — any
 * delimiter, CRLF or LF, quoting, title lines above the header, mapped column names with umlauts,
 * quantities written as ERPs write them — and dropped into inbox/ under any extension case, are
 * read by processInboxFile with their profile into exactly the same desired stock.
 */

/**
 * SKU characters every encoding here has, delimiters and quotes included (a TAB is a control
 * character, which no SKU may hold; it appears as the delimiter).
 */
const SKU_CHARS = [...'abcXYZ019-_./#äöüßÉ€„”', ',', ';', '|', '"', ' '];

/** A whole number as an ERP may write it with the given decimal mark. */
function writeQuantity(n: number, decimal: '.' | ',', style: number): string {
  const group = decimal === '.' ? ',' : '.';
  const grouped = n.toLocaleString('en-US').replaceAll(',', group);
  switch (style % 4) {
    case 0:
      return String(n);
    case 1:
      return grouped;
    case 2:
      return `${n}${decimal}00`;
    default:
      return ` ${grouped}${decimal}0 `;
  }
}

const sample = fc.record({
  encoding: fc.constantFrom(...ENCODINGS),
  delimiter: fc.constantFrom(',', ';', '\t', '|'),
  eol: fc.constantFrom('\n', '\r\n'),
  extension: fc.constantFrom('csv', 'CSV', 'txt', 'Txt', 'tsv', 'TSV'),
  decimal: fc.constantFrom('.', ','),
  titles: fc.array(fc.constantFrom('Bestandsliste', 'Stand: "01.05.2024"', ''), { maxLength: 2 }),
  rows: fc.array(
    fc.record({
      sku: fc.array(fc.constantFrom(...SKU_CHARS), { maxLength: 6 }).map((a) => a.join('')),
      quantity: fc.integer({ min: 0, max: 5_000_000 }),
      style: fc.nat(),
    }),
    { minLength: 1, maxLength: 15 },
  ),
});

let env: IngestEnv;
let n = 0;
beforeAll(() => {
  env = makeIngestEnv('erp-property');
});
afterAll(async () => {
  await env.cleanup();
});

describe('ERP exports, property (processInboxFile)', () => {
  it('rows written in any dialect and encoding become the same desired stock', async () => {
    await fc.assert(
      fc.asyncProperty(sample, async (s) => {
        const c = ++n;
        const name = `prop-${c}.${s.extension}`;
        const profiles = profilesFileSchema.parse({
          profiles: [
            {
              match: 'prop-*',
              headerLine: s.titles.length + 1,
              decimal: s.decimal,
              columns: { sku: 'Artikel-Nr. (Größe)', stock_quantity: 'Menge' },
            },
          ],
        }).profiles;
        // A SKU starts with the case's prefix (unique across cases, never blank or spaced).
        const rows = s.rows.map((r) => ({ ...r, sku: `c${c}-${r.sku}`.trimEnd() }));
        const lines = [
          ...s.titles,
          ['Artikel-Nr. (Größe)', 'Bemerkung', 'Menge'].join(s.delimiter),
          ...rows.map((r) =>
            [r.sku, 'x', writeQuantity(r.quantity, s.decimal, r.style)]
              .map(quote)
              .join(s.delimiter),
          ),
        ];
        env.drop(name, encode(lines.join(s.eol) + s.eol, s.encoding));
        const out = await env.process(name, { profiles: () => profiles });
        const report = env.report(out);
        expect(report).toMatchObject({
          outcome: 'processed',
          encoding: s.encoding === 'utf-8-bom' ? 'utf-8' : s.encoding,
          delimiter: s.delimiter,
          headerLine: s.titles.length + 1,
          rowsRejected: 0,
        });
        const expected = new Map<string, number>();
        for (const r of rows) expected.set(r.sku, r.quantity);
        const got = env
          .desired()
          .filter((d) => d.sku.startsWith(`c${c}-`))
          .map((d) => [d.sku, d.quantity] as const);
        expect(new Map(got)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });
});
