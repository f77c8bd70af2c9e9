import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectFile } from '../../../src/inventory/ingest/collect.ts';
import { tempFolder } from './helpers.ts';

const real = new URL('../../fixtures/real/', import.meta.url);
const dir = tempFolder('no-header');

async function reason(path: string | URL) {
  const c = await collectFile(createReadStream(path), { format: 'csv', maxSkuLength: 64 });
  return c.ok ? undefined : c.reason;
}

describe('a file without a header row', () => {
  it('is told so, not "column 0 appears twice" (iDempiere loader file)', async () => {
    expect(await reason(new URL('idempiere-ExampleInventory.csv', real))).toBe(
      'no header row: the first row holds data ("0", "1", "0" are values, not column names); a file without a header is read with a profile giving headerLine 0 and its columns by position',
    );
  });

  it('is told so when its first row names no kind', async () => {
    const path = join(dir, 'bare.csv');
    writeFileSync(path, 'SKU-1,5\nSKU-2,7\n');
    expect(await reason(path)).toMatch(/^no header row: the first row holds data \("5" are values/);
  });

  it('keeps the old reasons for a real header', async () => {
    const dup = join(dir, 'dup.csv');
    writeFileSync(dup, 'sku,SKU,stock_quantity\nA,B,1\n');
    expect(await reason(dup)).toBe('column "sku" appears twice in the header');
    const unknown = join(dir, 'unknown.csv');
    writeFileSync(unknown, 'item,amount\nA,1\n');
    expect(await reason(unknown)).not.toMatch(/no header row/);
  });
});
