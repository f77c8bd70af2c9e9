import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { relsXml, sheetXml, workbookXml, zip } from './formats/zip.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

/**
 * Workbooks through processInboxFile, read from the open file where it lies: a file refused
 * after its reading started leaves the handle to its owner (the stream of a FileHandle closes the
 * handle when destroyed), and the report says why.
 */

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('workbook-ingest');
});
afterEach(async () => {
  await env.cleanup();
});

function workbook(name: string, rows: ReadonlyArray<readonly [number, string]>): void {
  writeFileSync(
    join(env.paths.inbox, name),
    zip([
      ['xl/workbook.xml', workbookXml([['S', 'rId1']])],
      ['xl/_rels/workbook.xml.rels', relsXml([['rId1', '/xl/worksheets/sheet1.xml']])],
      ['xl/worksheets/sheet1.xml', sheetXml(rows)],
    ]),
  );
}

const text = (ref: string, t: string) => `<c r="${ref}" t="inlineStr"><is><t>${t}</t></is></c>`;

describe('workbooks through the pipeline', () => {
  it('fails a workbook whose header names no kind, with the reason', async () => {
    workbook('odd.xlsx', [
      [1, text('A1', 'foo')],
      [2, '<c r="A2"><v>1</v></c>'],
    ]);
    const out = await env.process('odd.xlsx');
    expect(out.status).toBe('failed');
    expect(env.report(out).reason).toMatch(/^no columns naming a kind \(found: foo\)/);
  });

  it('tells a workbook without a header row so', async () => {
    workbook('bare.xlsx', [
      [1, `${text('A1', 'SKU-1')}<c r="B1"><v>5</v></c>`],
      [2, `${text('A2', 'SKU-2')}<c r="B2"><v>7</v></c>`],
    ]);
    const out = await env.process('bare.xlsx');
    expect(out.status).toBe('failed');
    expect(env.report(out).reason).toMatch(
      /^no header row: the first row holds data \("5" are values/,
    );
  });

  it('applies a workbook with absolute targets', async () => {
    workbook('ok.xlsx', [
      [1, `${text('A1', 'sku')}${text('B1', 'stock_quantity')}`],
      [2, `${text('A2', 'SKU-1')}<c r="B2"><v>5</v></c>`],
    ]);
    const out = await env.process('ok.xlsx');
    expect(out).toMatchObject({ status: 'processed', rowsAccepted: 1 });
    expect(env.desired().map((d) => [d.sku, d.quantity])).toEqual([['SKU-1', 5]]);
  });
});
