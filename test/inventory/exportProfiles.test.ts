import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Profile, profilesFileSchema } from '../../src/config/profiles.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

/**
 * Layouts that no redistributable real file covers, written here as their systems publish them
 * and read through processInboxFile with the profiles of examples/profiles/ (Shopify's inventory
 * export and its legacy wide product export), plus an Odoo quant export whose available stock is
 * on hand − reserved, summed over lots.
 */

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('export-profiles');
  env.portal.centres.push({ code: 'DC-LON', is_active: true }, { code: 'DC-MAN', is_active: true });
});
afterEach(async () => {
  await env.cleanup();
});

const example = (name: string): Profile[] =>
  profilesFileSchema.parse(
    JSON.parse(
      readFileSync(new URL(`../../examples/profiles/${name}.json`, import.meta.url), 'utf8'),
    ),
  ).profiles;

const desired = () =>
  Object.fromEntries(
    env
      .desired()
      .map((r) => [r.kind === 'dc' ? `dc:${r.dc}:${r.sku}` : `factory:${r.sku}`, r.quantity]),
  );

describe('published layouts read with their example profiles', () => {
  it("Shopify's inventory export: a row per variant and location, 'not stocked' as 0, two locations of one centre added up", async () => {
    const head =
      'Handle,Title,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Option3 Name,Option3 Value,SKU,HS Code,COO,Location,Bin name,Incoming (not editable),Unavailable (not editable),Committed (not editable),Available (not editable),On hand (current),On hand (new)';
    const rows = [
      'lamp,Lamp,Size,S,,,,,LAMP-S,,,Shop location,,0,0,1,4,5,',
      'lamp,Lamp,Size,S,,,,,LAMP-S,,,Back room,,0,0,0,2,2,',
      'lamp,Lamp,Size,M,,,,,LAMP-M,,,Shop location,,0,0,0,not stocked,not stocked,',
      'lamp,Lamp,Size,M,,,,,LAMP-M,,,Warehouse,,0,0,0,7,7,',
    ];
    env.drop('inventory_export_1.csv', `${head}\n${rows.join('\n')}\n`);
    const out = await env.process('inventory_export_1.csv', {
      profiles: () => example('shopify'),
      locations: () => ({ 'Shop location': 'DC-LON', 'Back room': 'DC-LON', Warehouse: 'DC-MAN' }),
    });
    expect(env.report(out)).toMatchObject({ rowsAccepted: 4, summed: 1, rowsRejected: 0 });
    expect(desired()).toEqual({
      'dc:DC-LON:LAMP-S': 6,
      'dc:DC-LON:LAMP-M': 0,
      'dc:DC-MAN:LAMP-M': 7,
    });
  });

  it("Shopify's legacy product export: one quantity column per location, spread to a row each", async () => {
    const head =
      'Handle,Title,Variant SKU,Variant Inventory Tracker,Inventory Available: Shop location,Inventory Available: Warehouse,Variant Price';
    env.drop(
      'products_export_1.csv',
      `${head}\nlamp,Lamp,LAMP-S,shopify,3,not stocked,25.00\nlamp,,LAMP-M,shopify,0,12,25.00\n`,
    );
    const out = await env.process('products_export_1.csv', {
      profiles: () => example('shopify'),
      locations: () => ({ 'WH-MANCHESTER': 'DC-MAN' }),
    });
    expect(env.report(out)).toMatchObject({ kind: 'dc_stock', rowsRead: 2, rowsAccepted: 4 });
    expect(desired()).toEqual({
      'dc:DC-LON:LAMP-S': 3,
      'dc:DC-MAN:LAMP-S': 0,
      'dc:DC-LON:LAMP-M': 0,
      'dc:DC-MAN:LAMP-M': 12,
    });
  });

  it("Odoo's quant export: available = on hand − reserved, lots of a product added up", async () => {
    env.drop(
      'stock.quant.csv',
      'Product,Location,Lot/Serial Number,Quantity,Reserved Quantity,Unit of Measure\n' +
        'FURN_7800,WH/Stock,LOT-1,10.0,2.0,Units\n' +
        'FURN_7800,WH/Stock,LOT-2,5.0,,Units\n' +
        'FURN_8888,WH/Stock,LOT-3,3.5,1.0,kg\n',
    );
    const profiles = profilesFileSchema.parse({
      profiles: [
        {
          match: 'stock.quant*.csv',
          kind: 'factory',
          columns: { sku: 'Product', stock_quantity: 'Quantity' },
          subtract: ['Reserved Quantity'],
          duplicates: 'sum',
          fractions: 'floor',
        },
      ],
    }).profiles;
    const out = await env.process('stock.quant.csv', { profiles: () => profiles });
    expect(env.report(out)).toMatchObject({
      rowsAccepted: 3,
      summed: 1,
      ignoredColumns: ['location', 'lot/serial number', 'unit of measure'],
    });
    expect(desired()).toEqual({ 'factory:FURN_7800': 13, 'factory:FURN_8888': 2 });
  });
});
