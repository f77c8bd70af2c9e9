import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PACKAGE_LIMITS } from '../../../src/inventory/parse/workbook/zip.ts';
import type { XlsxOptions } from '../../../src/inventory/parse/xlsx.ts';
import { readXlsxFile, tempFolder } from './helpers.ts';
import { type Deflated, relsXml, workbookXml, zip } from './zip.ts';

/**
 * Workbooks that are small on disk and huge in memory (issue #28): each ends as a bad file with
 * a reason, and the reading process stays within bounds. Measured in this process: the peak RSS
 * while reading (sampled every 2 ms, and the process's maxRSS) must stay within 64 MiB of what
 * it was before — far below what holding any of these would take (64 MiB of text in one cell is
 * 64–128 MiB as a string, 2 million strings ~100 MiB of heap).
 */

const dir = tempFolder('workbook-bounds');
const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const MiB = 1024 * 1024;

/** `head`, then `unit` repeated `times`, then `tail`, deflated a piece at a time (never whole). */
function deflatedRepeat(head: string, unit: string, times: number, tail: string): Deflated {
  const piece = Buffer.from(unit.repeat(Math.max(1, Math.floor(MiB / unit.length))));
  const perPiece = piece.length / unit.length;
  const parts: Buffer[] = [];
  let crc = crc32(head);
  let size = Buffer.byteLength(head);
  // Consecutive full flushes of one deflate stream: each piece compressed on its own.
  const chunks: Buffer[] = [Buffer.from(head)];
  let left = times;
  while (left > 0) {
    const n = Math.min(left, perPiece);
    const chunk = n === perPiece ? piece : piece.subarray(0, n * unit.length);
    chunks.push(chunk);
    crc = crc32(chunk, crc);
    size += chunk.length;
    left -= n;
  }
  chunks.push(Buffer.from(tail));
  crc = crc32(tail, crc);
  size += Buffer.byteLength(tail);
  // The same piece deflates to the same bytes: deflate each distinct chunk once.
  const cache = new Map<Buffer, Buffer>();
  chunks.forEach((c, i) => {
    const last = i === chunks.length - 1;
    let d = last ? undefined : cache.get(c);
    if (d === undefined) {
      d = deflateRawSync(c, { finishFlush: last ? constants.Z_FINISH : constants.Z_FULL_FLUSH });
      if (!last) cache.set(c, d);
    }
    parts.push(d);
  });
  return { deflated: Buffer.concat(parts), size, crc };
}

function workbook(
  name: string,
  sheet: string | Deflated,
  extra: Array<[string, string | Deflated]> = [],
): string {
  const path = join(dir, name);
  const rels: Array<[string, string, string?]> = [['rId1', 'worksheets/sheet1.xml']];
  if (extra.length > 0) rels.push(['rId2', 'sharedStrings.xml', 'sharedStrings']);
  writeFileSync(
    path,
    zip([
      ['xl/workbook.xml', workbookXml([['S', 'rId1']])],
      ['xl/_rels/workbook.xml.rels', relsXml(rels)],
      ['xl/worksheets/sheet1.xml', sheet],
      ...extra,
    ]),
  );
  return path;
}

const header =
  '<row r="1"><c r="A1" t="inlineStr"><is><t>sku</t></is></c><c r="B1" t="inlineStr"><is><t>stock_quantity</t></is></c></row>';
const sheetOpen = `<worksheet ${NS}><sheetData>${header}`;
const sheetClose = '</sheetData></worksheet>';

/** Reads `path` (as the daemon does, from the open file) and returns the error, with the RSS it took. */
async function readBounded(path: string, options: XlsxOptions = {}) {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 2);
  try {
    const error = await readXlsxFile(path, { handle: true, ...options }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    peak = Math.max(peak, process.memoryUsage().rss);
    return { error, grewMiB: (peak - before) / MiB };
  } finally {
    clearInterval(sampler);
  }
}

const noBombCheck: XlsxOptions = {
  packageLimits: { ...DEFAULT_PACKAGE_LIMITS, maxRatio: Number.POSITIVE_INFINITY },
};

describe('workbooks small on disk and huge in memory', () => {
  const hugeCell = () =>
    workbook(
      'huge-cell.xlsx',
      deflatedRepeat(
        `${sheetOpen}<row r="2"><c r="A2" t="inlineStr"><is><t>`,
        'A',
        64 * MiB,
        `</t></is></c></row>${sheetClose}`,
      ),
    );

  it('refuses a part that inflates like a bomb before reading it', async () => {
    const { error, grewMiB } = await readBounded(hugeCell());
    expect(error?.message).toMatch(
      /^not a readable \.xlsx workbook: its part xl\/worksheets\/sheet1\.xml inflates \d+ times .*zip bomb/,
    );
    expect(grewMiB).toBeLessThan(64);
  });

  it('ends a cell longer than the record limit as it streams, without holding it', async () => {
    const { error, grewMiB } = await readBounded(hugeCell(), noBombCheck);
    expect(error?.message).toMatch(
      /^not a readable \.xlsx workbook: its part \/xl\/worksheets\/sheet1\.xml holds a cell, string, tag or comment longer than 1048576 characters/,
    );
    expect(grewMiB).toBeLessThan(64);
  });

  it('ends a comment or CDATA section longer than the record limit without holding it, `<` inside or not', async () => {
    for (const [name, open, close] of [
      ['comment', '<!--', '-->'],
      ['cdata', '<c r="A2" t="inlineStr"><is><t><![CDATA[', ']]></t></is></c>'],
    ] as const) {
      const path = workbook(
        `long-${name}.xlsx`,
        deflatedRepeat(
          `${sheetOpen}<row r="2">${open}`,
          'x<y ',
          16 * MiB,
          `${close}</row>${sheetClose}`,
        ),
      );
      const { error, grewMiB } = await readBounded(path, noBombCheck);
      expect(error?.message).toMatch(
        /its part \/xl\/worksheets\/sheet1\.xml holds a cell, string, tag or comment longer than 1048576 characters/,
      );
      expect(grewMiB).toBeLessThan(64);
    }
  });

  it('refuses millions of shared strings it cannot keep out of memory', async () => {
    const sst = deflatedRepeat(`<sst ${NS}>`, '<si><t>a</t></si>', 2_000_000, '</sst>');
    const sheet = `${sheetOpen}<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2"><v>1</v></c></row>${sheetClose}`;
    const path = workbook('many-strings.xlsx', sheet, [['xl/sharedStrings.xml', sst]]);
    const bomb = await readBounded(path);
    expect(bomb.error?.message).toMatch(/its part xl\/sharedStrings\.xml inflates \d+ times/);
    const { error, grewMiB } = await readBounded(path, noBombCheck);
    expect(error?.message).toMatch(
      /its shared strings take more than 131072 strings|its shared strings take more than/,
    );
    expect(grewMiB).toBeLessThan(64);
  });

  it('refuses a part whose data inflates to more than its zip entry declares (a bomb lying about its size)', async () => {
    const real = deflatedRepeat(sheetOpen, '<row/>', 100_000, sheetClose);
    const lying = workbook('lying.xlsx', { ...real, size: 1000 });
    const { error, grewMiB } = await readBounded(lying);
    expect(error?.message).toMatch(
      /its part xl\/worksheets\/sheet1\.xml inflates to more bytes than its zip entry declares \(1000\)/,
    );
    expect(grewMiB).toBeLessThan(64);
  });

  it('refuses XML nested deeper than 64 elements, a long row, and XML that is not well-formed', async () => {
    const deep = workbook(
      'deep.xlsx',
      `${sheetOpen}${'<x>'.repeat(10_000)}${'</x>'.repeat(10_000)}${sheetClose}`,
    );
    expect((await readBounded(deep)).error?.message).toMatch(/nests elements deeper than 64/);

    const cells = Array.from(
      { length: 20 },
      (_, i) =>
        `<c r="${String.fromCharCode(65 + i)}2" t="inlineStr"><is><t>${'x'.repeat(100)}</t></is></c>`,
    ).join('');
    const wide = workbook(
      'wide.xlsx',
      `<worksheet ${NS}><sheetData><row r="1">${Array.from({ length: 20 }, (_, i) => `<c r="${String.fromCharCode(65 + i)}1" t="inlineStr"><is><t>c${i}</t></is></c>`).join('')}</row><row r="2">${cells}</row>${sheetClose}`,
    );
    expect((await readBounded(wide, { maxRecordBytes: 1000 })).error?.message).toMatch(
      /line 2: a record longer than 1000 bytes/,
    );

    const broken = workbook(
      'broken.xlsx',
      `${sheetOpen}<row r="2"><c r="A2"><v>1</c></row>${sheetClose}`,
    );
    expect((await readBounded(broken)).error?.message).toMatch(
      /its part \/xl\/worksheets\/sheet1\.xml is not well-formed XML/,
    );
  });
});
