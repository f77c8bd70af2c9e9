import { closeSync, openSync, renameSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { type Deflated, relsXml, workbookXml, zip } from '../inventory/formats/zip.ts';

/**
 * Inbox files that are small on disk (or cheap to write) and huge in memory for a careless
 * reader (issue #28 point 2): one of each format. Each is written streaming under a hidden name
 * beside its path, then renamed, so it can be dropped straight into inbox/. Sizes scale with
 * `scale` (1 = the review's sizes); tests use small scales, the benchmark the full ones.
 */

const MiB = 1024 * 1024;
const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';

export interface HostileFile {
  /** The file name (its extension says its format). */
  readonly name: string;
  /** What it is, for messages and the benchmark's table. */
  readonly what: string;
  /** Writes it at `path` (temp name, then rename). */
  write(path: string): void;
}

/** `head`, `unit` × `times`, `tail` deflated piecewise (each distinct 1 MiB piece deflated once). */
export function deflatedRepeat(head: string, unit: string, times: number, tail: string): Deflated {
  const piece = Buffer.from(unit.repeat(Math.max(1, Math.floor(MiB / unit.length))));
  const perPiece = piece.length / unit.length;
  const chunks: Buffer[] = [Buffer.from(head)];
  let left = times;
  while (left > 0) {
    const n = Math.min(left, perPiece);
    chunks.push(n === perPiece ? piece : piece.subarray(0, n * unit.length));
    left -= n;
  }
  chunks.push(Buffer.from(tail));
  let crc = 0;
  let size = 0;
  const cache = new Map<Buffer, Buffer>();
  const parts = chunks.map((c, i) => {
    crc = crc32(c, crc);
    size += c.length;
    const last = i === chunks.length - 1;
    let d = last ? undefined : cache.get(c);
    if (d === undefined) {
      d = deflateRawSync(c, { finishFlush: last ? constants.Z_FINISH : constants.Z_FULL_FLUSH });
      if (!last) cache.set(c, d);
    }
    return d;
  });
  return { deflated: Buffer.concat(parts), size, crc };
}

/** Writes `parts` (strings or buffers, or a repeated unit) to `path` through a temp name. */
function writeStreaming(path: string, parts: Iterable<string | Buffer>): void {
  const temp = join(dirname(path), `.${basename(path)}.tmp`);
  const fd = openSync(temp, 'w');
  try {
    let buf: Buffer[] = [];
    let held = 0;
    for (const p of parts) {
      const b = typeof p === 'string' ? Buffer.from(p) : p;
      buf.push(b);
      held += b.length;
      if (held >= MiB) {
        writeSync(fd, Buffer.concat(buf));
        buf = [];
        held = 0;
      }
    }
    if (held > 0) writeSync(fd, Buffer.concat(buf));
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/** `unit` repeated `times`, in pieces of about 1 MiB. */
function* repeat(unit: string, times: number): Generator<Buffer> {
  const perPiece = Math.max(1, Math.floor(MiB / unit.length));
  const piece = Buffer.from(unit.repeat(perPiece));
  for (let left = times; left > 0; left -= perPiece) {
    yield left >= perPiece ? piece : piece.subarray(0, left * unit.length);
  }
}

function workbook(path: string, sheet: Deflated, sharedStrings?: Deflated): void {
  const rels: Array<[string, string, string?]> = [['rId1', 'worksheets/sheet1.xml']];
  if (sharedStrings !== undefined) rels.push(['rId2', 'sharedStrings.xml', 'sharedStrings']);
  const bytes = zip([
    ['xl/workbook.xml', workbookXml([['S', 'rId1']])],
    ['xl/_rels/workbook.xml.rels', relsXml(rels)],
    ['xl/worksheets/sheet1.xml', sheet],
    ...(sharedStrings === undefined
      ? []
      : [['xl/sharedStrings.xml', sharedStrings] as [string, Deflated]]),
  ]);
  writeStreaming(path, [bytes]);
}

const HEADER_ROW =
  '<row r="1"><c r="A1" t="inlineStr"><is><t>sku</t></is></c><c r="B1" t="inlineStr"><is><t>stock_quantity</t></is></c></row>';
const SHEET_OPEN = `<?xml version="1.0" encoding="UTF-8"?><worksheet ${NS}><sheetData>`;
const SHEET_CLOSE = '</sheetData></worksheet>';

/** The hostile files, one per shape; `scale` 1 is the review's size. */
export function hostileFiles(scale = 1): HostileFile[] {
  const n = (full: number) => Math.max(1, Math.round(full * scale));
  const cellMiB = n(300);
  const strings = n(5_000_000);
  const jsonMiB = n(32);
  const fieldMiB = n(64);
  const wide = n(4_000_000);
  const wideLines = n(128);
  return [
    {
      name: 'hostile-cell.xlsx',
      what: `a workbook with one ${cellMiB} MiB inline-string cell`,
      write: (path) =>
        workbook(
          path,
          deflatedRepeat(
            `${SHEET_OPEN}${HEADER_ROW}<row r="2"><c r="A2" t="inlineStr"><is><t>`,
            'A',
            cellMiB * MiB,
            `</t></is></c><c r="B2"><v>1</v></c></row>${SHEET_CLOSE}`,
          ),
        ),
    },
    {
      name: 'hostile-strings.xlsx',
      what: `a workbook of ${strings.toLocaleString('en')} shared strings`,
      write: (path) =>
        workbook(
          path,
          deflatedRepeat(
            `${SHEET_OPEN}${HEADER_ROW}`,
            '<row><c t="s"><v>0</v></c><c><v>1</v></c></row>',
            1000,
            SHEET_CLOSE,
          ),
          deflatedRepeat(`<sst ${NS}>`, '<si><t>a</t></si>', strings, '</sst>'),
        ),
    },
    {
      name: 'hostile-wide.xlsx',
      what: `a workbook whose header row has ${wide.toLocaleString('en')} cells`,
      write: (path) =>
        workbook(
          path,
          deflatedRepeat(
            `${SHEET_OPEN}<row r="1">`,
            '<c t="inlineStr"><is><t>x</t></is></c>',
            wide,
            `</row><row r="2"><c><v>1</v></c></row>${SHEET_CLOSE}`,
          ),
        ),
    },
    {
      name: 'hostile-empty.json',
      what: `a ${jsonMiB} MiB JSON array of empty objects`,
      write: (path) =>
        writeStreaming(path, ['[{}', ...repeat(',{}', Math.floor((jsonMiB * MiB) / 3)), ']']),
    },
    {
      name: 'hostile-empty.jsonl',
      what: `${jsonMiB} MiB of JSON Lines of empty objects`,
      write: (path) => writeStreaming(path, [...repeat('{}\n', Math.floor((jsonMiB * MiB) / 3))]),
    },
    {
      name: 'hostile-rows.csv',
      what: `${jsonMiB} MiB of CSV rows of one bad field each`,
      write: (path) =>
        writeStreaming(path, [
          'sku,stock_quantity\n',
          ...repeat('x,\n', Math.floor((jsonMiB * MiB) / 3)),
        ]),
    },
    {
      name: 'hostile-field.csv',
      what: `a CSV whose one quoted field is ${fieldMiB} MiB`,
      write: (path) =>
        writeStreaming(path, [
          'sku,stock_quantity\n"',
          ...repeat('a', fieldMiB * MiB),
          '",1\nSKU-0000001,3\n',
        ]),
    },
    {
      name: 'hostile-columns.tsv',
      what: `a TSV whose header has ${Math.floor(wide / 4).toLocaleString('en')} empty columns`,
      write: (path) =>
        writeStreaming(path, [
          'sku\tstock_quantity',
          ...repeat('\t', Math.floor(wide / 4)),
          '\n',
          ...Array.from({ length: 64 }, () => [
            'SKU-0000001\t1',
            ...repeat('\t', Math.floor(wide / 4)),
            '\n',
          ]).flat(),
        ]),
    },
    {
      name: 'hostile-keys.jsonl',
      what: `${wideLines} JSON Lines of ~1 MiB objects of ~60,000 keys each`,
      write: (path) => {
        const keys = Array.from({ length: 60_000 }, (_, i) => `"k${i}":1`).join(',');
        const line = Buffer.from(`{"sku":"SKU-0000001","stock_quantity":1,${keys}}\n`);
        writeStreaming(
          path,
          Array.from({ length: wideLines }, () => line),
        );
      },
    },
  ];
}
