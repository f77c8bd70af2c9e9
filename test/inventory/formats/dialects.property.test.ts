import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EncodingChoice } from '../../../src/inventory/parse/encoding.ts';
import { chunked, ENCODINGS, encode, quote, readDelimitedStream, records } from './helpers.ts';

/**
 * Rows written in any supported dialect and encoding read back as the same rows: delimiter , ;
 * TAB |, CRLF or LF, quoting where a field needs it, title lines above the header, UTF-8 with or
 * without BOM, UTF-16LE/BE with BOM, Windows-1252 — handed over in chunks of any size, so that
 * sequences and code units are cut anywhere.
 */

/** Characters Windows-1252 has (and so every encoding here): ASCII, Latin-1 letters, €, quotes. */
const CP1252_CHARS = [
  ...' abcdefghijklmnopqrstuvwxyzABCXYZ0123456789.-_/#',
  ...'äöüÄÖÜßéèàçñ€„“”–',
  ',',
  ';',
  '\t',
  '|',
  '"',
  '\n',
  '\r\n',
];
const WIDE_CHARS = [...CP1252_CHARS, 'Ł', 'Ω', '漢', '😀'];

const field = (chars: readonly string[]) =>
  fc.array(fc.constantFrom(...chars), { maxLength: 8 }).map((a) => a.join(''));

const sample = fc
  .record({
    encoding: fc.constantFrom(...ENCODINGS),
    delimiter: fc.constantFrom(',', ';', '\t', '|'),
    eol: fc.constantFrom('\n', '\r\n'),
    finalEol: fc.boolean(),
    titles: fc.array(fc.constantFrom('Lagerbestand', 'Export 01.05.2024', 'Stand: "heute"'), {
      maxLength: 2,
    }),
    width: fc.integer({ min: 2, max: 5 }),
    chunk: fc.integer({ min: 1, max: 64 }),
    forced: fc.boolean(),
  })
  .chain((s) => {
    const chars = s.encoding === 'windows-1252' ? CP1252_CHARS : WIDE_CHARS;
    const row = fc.tuple(...Array.from({ length: s.width }, () => field(chars)));
    return fc.record({ s: fc.constant(s), rows: fc.array(row, { maxLength: 12 }) });
  });

describe('dialects and encodings, property', () => {
  it('read back as the same rows', async () => {
    await fc.assert(
      fc.asyncProperty(sample, async ({ s, rows }) => {
        // Header names: distinct, lower case (as normalized), the first with an ö so that a
        // Windows-1252 file is never valid UTF-8 by chance.
        const header = Array.from({ length: s.width }, (_, i) => (i === 0 ? 'größe' : `feld ${i}`));
        // A row starts with a letter, so that no row is blank (blank rows are skipped).
        const data = rows.map((r) => r.map((v, i) => (i === 0 ? `x${v}` : v)));
        const lines = [
          ...s.titles,
          header.join(s.delimiter),
          ...data.map((r) => r.map((v) => quote(v)).join(s.delimiter)),
        ];
        const text = lines.join(s.eol) + (s.finalEol ? s.eol : '');
        const bytes = encode(text, s.encoding);
        const encoding: EncodingChoice = s.forced
          ? s.encoding === 'utf-8-bom'
            ? 'utf-8'
            : s.encoding
          : 'auto';
        const result = await readDelimitedStream(chunked(bytes, s.chunk), bytes, {
          headerLine: s.titles.length + 1,
          encoding,
          ...(s.forced ? { delimiter: s.delimiter } : {}),
        });
        const expected: Array<Record<string, unknown>> = [];
        let line = s.titles.length + 2;
        for (const r of data) {
          const fields: Record<string, unknown> = { line };
          header.forEach((h, i) => {
            fields[h] = r[i];
          });
          expected.push(fields);
          line += 1 + r.join('').split('\n').length - 1;
        }
        expect(result.dialect).toEqual({
          encoding: s.encoding === 'utf-8-bom' ? 'utf-8' : s.encoding,
          delimiter: s.delimiter,
          headerLine: s.titles.length + 1,
        });
        expect(records(result.events)).toEqual(expected);
        expect(result.tapHash).toBe(result.fileHash);
      }),
      { numRuns: 300 },
    );
  });
});
