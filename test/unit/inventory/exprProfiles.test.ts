// biome-ignore-all lint/suspicious/noThenProperty: the contract names the field `then`
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { profilesFileSchema } from '../../../src/config/profiles.ts';
import { type CollectedFile, collectFile } from '../../../src/inventory/ingest/collect.ts';
import type { InboxFormat } from '../../../src/inventory/parse/records.ts';
import { readPlanFor } from '../../../src/inventory/validate/readPlan.ts';
import { GROUPED_PROFILE } from '../../helpers/groupedProfile.ts';

/**
 * Expressions and column references of a profile, read through the real readers and row checks
 * (collectFile on delimited text and JSON): what each row becomes, and why a row is rejected.
 */

const NOW = { now: new Date('2026-03-10T12:00:00Z'), timeZone: 'Europe/Berlin' };

async function read(profile: object, text: string, format: InboxFormat = 'csv', name = 'f.csv') {
  const profiles = profilesFileSchema.parse({ profiles: [{ match: '*', ...profile }] }).profiles;
  const r = await collectFile(Readable.from([Buffer.from(text)]), {
    format,
    maxSkuLength: 64,
    plan: readPlanFor(profiles, name, NOW),
  });
  if (!r.ok) throw new Error(`unreadable: ${r.reason}`);
  return r;
}

const stock = (c: CollectedFile) =>
  [...c.stock.values()].map((e) => `${e.dc ? `${e.dc}/` : ''}${e.sku}=${e.quantity}`);

describe('profile expressions on rows', () => {
  it('a composite key, a quantity with units, a not-equals condition and a past expiry', async () => {
    const c = await read(
      {
        ...GROUPED_PROFILE,
        decimal: ',',
      },
      [
        'Name;Variant Value;Units In Stock;Expiry;Item Type',
        'Shirt;XL;8.277 Unit(s);;Inventory',
        'Shirt;;5 Unit(s);;Inventory',
        'Mug;Blue;12 Unit(s);3/9/2026;Goods',
        'Mug;Red;12 Unit(s);3/10/2026;Goods',
        'Gift card;10;1 Unit(s);;Service',
      ].join('\n'),
    );
    expect(stock(c)).toEqual(['Shirt / XL=8277', 'Mug / Blue=0', 'Mug / Red=12']);
    expect(c).toMatchObject({ rowsRead: 5, rowsAccepted: 3, skipped: 2, rejected: [] });
  });

  it('a row whose expression fails is rejected alone, naming the field, never the cell', async () => {
    const c = await read(
      {
        columns: {
          sku: 'Item',
          stock_quantity: { expr: "number(row['Qty'])" },
        },
        when: [{ if: "date(row['Best before'], 'YYYY-MM-DD') < today()", then: 'zero' }],
      },
      'Item,Qty,Best before\nA,n/a secret,2027-01-01\nB,4,someday secret\nC,5,2027-02-01\n',
    );
    expect(stock(c)).toEqual(['C=5']);
    expect(c.rejected).toEqual([
      {
        line: 2,
        key: 'factory:A',
        field: 'stock_quantity',
        reason:
          'the expression for stock_quantity failed at character 1: number() cannot read the text as a number (not a whole number ≥ 0)',
      },
      {
        line: 3,
        key: 'factory:B',
        field: '(row)',
        reason:
          'the condition when[0] failed at character 1: date() text does not fit the layout YYYY-MM-DD',
      },
    ]);
    expect(JSON.stringify(c.rejected)).not.toContain('secret');
  });

  it('a SKU cell holding a list is rejected with its reason; a SKU with a comma stays a SKU', async () => {
    const c = await read(
      {
        columns: { sku: 'SKU', stock_quantity: 'Qty' },
        when: [
          {
            if: "row['SKU'].matches('^[^ ,]+(,[^ ,]+)+$')",
            then: 'reject',
            reason: 'the SKU cell holds a list of SKUs',
          },
        ],
      },
      'SKU;Qty\n"A-1,A-2,A-3";4\n"UK 2,5 N";7\nB-1;2\n',
    );
    expect(stock(c)).toEqual(['UK 2,5 N=7', 'B-1=2']);
    expect(c.rejected).toEqual([
      {
        line: 2,
        key: 'factory:A-1,A-2,A-3',
        field: '(row)',
        reason: 'the SKU cell holds a list of SKUs',
      },
    ]);
  });

  it('a reject without a reason names the condition; a column condition can reject too', async () => {
    const c = await read(
      {
        when: [
          { if: "row['sku'].startsWith('TEST')", then: 'reject' },
          { column: 'status', equals: ['blocked'], then: 'reject' },
        ],
      },
      'sku,stock_quantity,status\nTEST-1,1,\nA,2,Blocked\nB,3,\n',
    );
    expect(stock(c)).toEqual(['B=3']);
    expect(c.rejected.map((r) => r.reason)).toEqual([
      "row['sku'].startsWith('TEST')",
      '"status" is blocked',
    ]);
  });

  it('header names are folded (QUANTITÀ), has() tells a column the file has, cell and col read by place', async () => {
    const c = await read(
      {
        columns: {
          sku: { expr: "row['artikel'].trim() + (has(row['Farbe']) ? '-' + row['farbe'] : '')" },
          stock_quantity: { expr: "has(row['Reserve']) ? 0.0 : number(cell.C) + number(col[4])" },
        },
      },
      'ARTIKEL;FARBE;QUANTITÀ;;Note\n 0032 ;rot;5;2;x\n',
    );
    expect(stock(c)).toEqual(['0032-rot=7']);
    expect(c.ignoredColumns).toEqual(['note']);
  });

  it('a quantity expression giving text is read by the profile (decimal, fractions, negative)', async () => {
    const c = await read(
      {
        decimal: ',',
        fractions: 'floor',
        negative: 'zero',
        columns: { stock_quantity: { expr: "row['Menge'].replace(' Stk', '')" } },
      },
      'sku;Menge\nA;1.234,75 Stk\nB;-3 Stk\n',
    );
    expect(stock(c)).toEqual(['A=1234', 'B=0']);
    expect(c.clamped).toBe(1);
  });

  it('expressions read JSON objects by their keys', async () => {
    const c = await read(
      {
        columns: {
          sku: { expr: "row['Code'] + '-' + row['Size']" },
          stock_quantity: { expr: "row['On hand']" },
        },
      },
      '[{"Code":"A","Size":"M","On hand":"3","Note":"x"}]',
      'json',
      'f.json',
    );
    expect(stock(c)).toEqual(['A-M=3']);
    expect(c.ignoredColumns).toEqual(['note']);
  });

  it('confirmation fields can be expressions too', async () => {
    const c = await read(
      {
        kind: 'confirmations',
        columns: {
          order_number: { expr: "'PO-' + row['Order']" },
          carrier: 'Carrier',
          tracking_number: { expr: "row['Tracking'].upperAscii()" },
        },
      },
      'Order,Carrier,Tracking\n77,DHL,ab12\n',
    );
    expect(c.confirmations).toMatchObject([
      { orderNumber: 'PO-77', carrier: 'DHL', trackingNumber: 'AB12' },
    ]);
  });
});

describe('columns by place and occurrence, dataLine', () => {
  it('the last of twelve "End Stock" columns, an empty header cell by letter, data two lines under the header', async () => {
    const header = ['Item', '', ...Array.from({ length: 12 }, () => 'End Stock')].join(',');
    const units = ['Qty', 'Loc', ...Array.from({ length: 12 }, (_, i) => `M${i + 1}`)].join(',');
    const row = ['A', 'DC-1', ...Array.from({ length: 12 }, (_, i) => String(i + 1))].join(',');
    const c = await read(
      {
        headerLine: 2,
        dataLine: 4,
        columns: {
          sku: 'item',
          distribution_centre_code: { letter: 'B' },
          stock_quantity: { name: 'end stock', occurrence: 'last' },
        },
      },
      ['Stock report', header, units, row, 'B,DC-2,0,0,0,0,0,0,0,0,0,0,0,9'].join('\n'),
    );
    expect(c.kind).toBe('dc_stock');
    expect(stock(c)).toEqual(['DC-1/A=12', 'DC-2/B=9']);
    expect(c.rowsRead).toBe(2);
  });

  it('the K-th occurrence and a 1-based position with a header line', async () => {
    const c = await read(
      { columns: { sku: 2, stock_quantity: { name: 'Qty', occurrence: 2 } } },
      'x,Code,Qty,Qty\n1,A,5,6\n',
    );
    expect(stock(c)).toEqual(['A=6']);
  });

  it('a file without a header: columns by letter and position, cells by cell and col', async () => {
    const c = await read(
      {
        headerLine: 0,
        kind: 'factory',
        columns: {
          sku: { letter: 'B' },
          stock_quantity: { expr: 'number(col[3]) - number(cell.D)' },
        },
      },
      'x,A,10,3\ny,B,5,5\n',
    );
    expect(stock(c)).toEqual(['A=7', 'B=0']);
  });

  it('a repeated name read by name is a problem named, not a guess', async () => {
    const profiles = profilesFileSchema.parse({
      profiles: [{ match: '*', columns: { sku: 'Code', stock_quantity: 'Qty' } }],
    }).profiles;
    const r = await collectFile(Readable.from([Buffer.from('Code,Qty,Qty\nA,1,2\n')]), {
      format: 'csv',
      maxSkuLength: 64,
      plan: readPlanFor(profiles, 'f.csv', NOW),
    });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/column "qty" appears 2 times in the header; name one with/);
  });
});
