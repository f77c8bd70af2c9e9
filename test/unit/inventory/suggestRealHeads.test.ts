/**
 * The profile suggestion on the heads of real exports (test/fixtures/real/, the layouts
 * exportProfiles.test.ts writes, the ERP exports of examples/erp/): the columns it picks, the
 * exports it recognises, and the catalogue of known exports held equal to the profiles shipped
 * in examples/profiles/.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SUGGEST_CASES, type SuggestCase } from '../../../bench/lib/suggestCases.ts';
import { profileSchema } from '../../../src/config/profiles.ts';
import { readFileHead } from '../../../src/inventory/parse/head/readHead.ts';
import { normalizeColumn } from '../../../src/inventory/parse/header.ts';
import { formatOf } from '../../../src/inventory/parse/records.ts';
import { inferProfile } from '../../../src/inventory/suggest/inferProfile.ts';
import { KNOWN_EXPORTS, recognise } from '../../../src/inventory/suggest/knownExports.ts';

const root = new URL('../../../', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'suggest-real-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The case's file, when this checkout has it. */
function fileOf(c: SuggestCase): string | undefined {
  if ('text' in c.source) {
    const path = join(scratch, c.name);
    writeFileSync(path, c.source.text);
    return path;
  }
  if ('project' in c.source) return join(root, c.source.project);
  const path = join(root, 'test/fixtures/real', c.source.fixture);
  return existsSync(path) ? path : undefined;
}

const present = SUGGEST_CASES.flatMap((c) => {
  const path = fileOf(c);
  return path === undefined ? [] : [{ c, path }];
});

const named = (ref: unknown) =>
  typeof ref === 'number' ? String(ref) : typeof ref === 'string' ? normalizeColumn(ref) : ref;
const asCase = (c: string | number) => (typeof c === 'number' ? String(c) : normalizeColumn(c));

describe('the profile suggestion on real exports', () => {
  it.each(present.map((p) => [p.c.name, p] as const))(
    '%s: the SKU and quantity columns its profile reads',
    async (_, { c, path }) => {
      const head = await readFileHead(path, formatOf(c.name)!);
      const { profile } = inferProfile(head, c.name);
      expect(profile, c.name).toBeDefined();
      expect(named(profile!.columns.sku)).toBe(asCase(c.sku));
      const quantities = Array.isArray(c.quantity) ? c.quantity : [c.quantity];
      if (quantities.length > 1) {
        expect(
          Object.keys(profile!.spread ?? {})
            .map(normalizeColumn)
            .sort(),
        ).toEqual(quantities.map(asCase).sort());
      } else {
        expect(named(profile!.columns.stock_quantity)).toBe(asCase(quantities[0]!));
      }
      // What it suggests is a profile the daemon takes.
      expect(profileSchema.safeParse(profile).success, JSON.stringify(profile)).toBe(true);
    },
  );

  it('recognises each real export of a system whose profile ships with the project', async () => {
    const systems: Record<string, string> = {
      'idempiere-ExampleInventory.csv': 'idempiere.json',
      'magento-export_full.csv': 'magento.json',
      'magento-stock_sources.csv': 'magento.json',
      'odoo-oca-stock_inventory_line.csv': 'odoo.json',
      'prestashop-combinations_import.csv': 'prestashop.json',
      'prestashop-products_import.csv': 'prestashop.json',
      'inventory_export_1.csv': 'shopify.json',
      'products_export_1.csv': 'shopify.json',
      'woocommerce-sample.csv': 'woocommerce.json',
      'openboxes-mainWarehouseInventory.csv': 'openboxes.json',
      'orocommerce-C1.csv': 'orocommerce.json',
      'ospos-import_items.csv': 'ospos.json',
      'shopware-ArticleInStockImport.csv': 'shopware.json',
      'snipeit-consumables-sample.csv': 'snipeit.json',
    };
    for (const { c, path } of present.filter((p) => !('project' in p.c.source))) {
      const head = await readFileHead(path, 'csv');
      const { layout } = inferProfile(head, c.name);
      const header = layout?.header?.cells.map((x) => String(x ?? ''));
      const known = recognise(header, head.tables[0]!);
      expect(known?.example, c.name).toBe(systems[c.name]);
    }
    // A file of no known system is recognised as none.
    const other = join(scratch, 'other.csv');
    writeFileSync(other, 'sku,quantity,status\nA-1,5,1\n');
    const head = await readFileHead(other, 'csv');
    expect(recognise(['sku', 'quantity', 'status'], head.tables[0]!)).toBeUndefined();
  });

  it('holds each known export’s profile equal to the one shipped in examples/profiles/', () => {
    const dir = join(root, 'examples/profiles');
    // workbooks.json reads the workbooks of test/fixtures/real/ that spreadsheet programs wrote:
    // their layouts, not a system's export, so nothing to recognise a file by.
    const shipped = readdirSync(dir).filter(
      (f) => f.endsWith('.json') && !f.includes('rules') && f !== 'workbooks.json',
    );
    expect(shipped.length).toBeGreaterThanOrEqual(6);
    for (const file of shipped) {
      const { profiles } = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        profiles: unknown[];
      };
      profiles.forEach((profile, index) => {
        const known = KNOWN_EXPORTS.find((k) => k.example === file && k.index === index);
        expect(known, `${file} profile ${index} has no entry in knownExports.ts`).toBeDefined();
        expect(known!.profile, `${file} profile ${index}`).toEqual(profile);
      });
    }
  });
});
