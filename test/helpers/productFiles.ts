import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileReport } from '../../src/inventory/index.ts';
import { relsXml, sheetXml, workbookXml, zip } from '../inventory/formats/zip.ts';
import { waitUntil } from './sandbox.ts';

/** Products files for the daemon's tests: the contract's columns, in each format. */

/** A description long enough for the platform's marketing (100 characters or more). */
export const LONG_DESCRIPTION =
  'Solid oak, oiled by hand, with a woven paper-cord seat: made in a small workshop to last for decades.';

/** A CSV of the given columns and rows (values quoted when they need it). */
export function productsCsv(
  columns: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number>>,
  delimiter = ',',
): string {
  const cell = (v: string | number) => {
    const text = String(v);
    return /["\n\r]/.test(text) || text.includes(delimiter)
      ? `"${text.replaceAll('"', '""')}"`
      : text;
  };
  return `${[columns, ...rows].map((r) => r.map(cell).join(delimiter)).join('\r\n')}\r\n`;
}

const xmlText = (t: string) =>
  t.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** A workbook of one sheet: numbers as numeric cells, the rest as inline strings. */
export function productsXlsx(
  columns: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number>>,
): Buffer {
  const letter = (i: number) => String.fromCharCode(65 + i);
  const cells = (values: ReadonlyArray<string | number>, r: number) =>
    values
      .map((v, i) =>
        typeof v === 'number'
          ? `<c r="${letter(i)}${r}"><v>${v}</v></c>`
          : v === ''
            ? ''
            : `<c r="${letter(i)}${r}" t="inlineStr"><is><t>${xmlText(v)}</t></is></c>`,
      )
      .join('');
  return zip([
    ['xl/workbook.xml', workbookXml([['Products', 'rId1']])],
    ['xl/_rels/workbook.xml.rels', relsXml([['rId1', 'worksheets/sheet1.xml']])],
    [
      'xl/worksheets/sheet1.xml',
      sheetXml([columns, ...rows].map((values, i) => [i + 1, cells(values, i + 1)] as const)),
    ],
  ]);
}

/** Writes bytes into inbox/ as an ERP should: under a hidden temporary name, then renamed. */
export function dropBytes(dataDir: string, name: string, bytes: Buffer | string): void {
  const temp = join(dataDir, 'inbox', `.${name}.tmp`);
  writeFileSync(temp, bytes);
  renameSync(temp, join(dataDir, 'inbox', name));
}

/** The report of a handled file in `folder` (processed, held, failed), once there. */
export async function reportOf(
  dataDir: string,
  folder: 'processed' | 'held' | 'failed',
  name: string,
  until: (r: FileReport) => boolean = () => true,
): Promise<FileReport> {
  const dir = join(dataDir, folder);
  let report: FileReport | undefined;
  await waitUntil(
    () => {
      const found = readdirSync(dir).find((f) => f.endsWith(`-${name}.report.json`));
      if (found === undefined) return false;
      report = JSON.parse(readFileSync(join(dir, found), 'utf8')) as FileReport;
      return until(report);
    },
    { timeoutMs: 30_000, message: `the report of ${name} in ${folder}/` },
  );
  return report!;
}

/** A report whose products have all been answered (created, existing or failed). */
export const answered = (r: FileReport) => r.products !== undefined && r.products.waiting === 0;
