import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import {
  dropCopies,
  type Expected,
  exampleProfiles,
  factoryValues,
  portalHolds,
  portalReads,
  REAL_FILES,
  reportOf,
} from '../helpers/realFiles.ts';

/**
 * Workbooks written by five spreadsheet programs and libraries (LibreOffice Calc, Gnumeric,
 * openpyxl, XlsxWriter, SheetJS; test/fixtures/real/README.md, "Workbooks from real writers"),
 * each writer's bytes as it wrote them, read end to end by the daemon with
 * examples/profiles/workbooks.json and pushed to the simulator. Every writer wrote the same two
 * layouts: a count on the second sheet under a title, rows 2–3 absent, a header over two rows
 * with merged cells and a Cyrillic name, an item type, lot expiry dates, digit SKUs as text and
 * as numbers shown 0000, a cell listing SKUs, `N Unit(s)` quantities; and a monthly report keyed
 * by two columns, its centre under an empty header cell, the last of twelve `End Stock` columns
 * read, a note between the header and the data.
 *
 * The daemon's clock is set to 15 January 2025 (noon UTC), so that of each writer's two lots one
 * has expired and one has not.
 */

const TODAY = Date.parse('2025-01-15T12:00:00Z');
const WRITERS = ['libreoffice', 'gnumeric', 'openpyxl', 'xlsxwriter', 'sheetjs'] as const;
type Writer = (typeof WRITERS)[number];

/**
 * What the portal holds after each writer's count workbook (the README's table); the first SKU
 * has a second, expired lot, which adds 0.
 */
const COUNT: Record<Writer, Record<string, number>> = {
  libreoffice: {
    QX039: 100000,
    TZ835: 0,
    AX738: 30,
    GK233: 10,
    '0032': 12,
    '0045': 7,
    'UK 2,5 N': 4,
  },
  gnumeric: {
    MC017: 3420,
    XM026: 0,
    GX785: 10,
    UB995: 25,
    '0033': 14,
    '0046': 9,
    'UK 3,5 N': 6,
  },
  openpyxl: { TS894: 2000, GM080: 0, QA069: 4, JG794: 2, '0034': 16, '0047': 11, 'UK 4,5 N': 8 },
  xlsxwriter: {
    DJ064: 5000,
    HG966: 0,
    PU084: 3,
    SJ730: 50,
    '0035': 18,
    '0048': 13,
    'UK 5,5 N': 10,
  },
  sheetjs: { CM871: 7296, EK670: 0, MM489: 33, PU011: 1, '0036': 20, '0049': 15, 'UK 6,5 N': 12 },
};

/** The row each count workbook skips (a service or a non-inventory item): left as it is. */
const NOT_STOCK: Record<Writer, string> = {
  libreoffice: 'CAL-001',
  gnumeric: 'DEL-001',
  openpyxl: 'GL-BOX-50',
  xlsxwriter: 'REP-001',
  sheetjs: 'TRN-001',
};

/** What the portal holds after each writer's monthly workbook: [centre, SKU, quantity]. */
const MONTHLY: Record<Writer, ReadonlyArray<readonly [string, string, number]>> = {
  libreoffice: [
    ['DC-LON', 'SW10002.1', 15],
    ['DC-MAN', 'SW10002.2', 15],
    ['DC-LON', 'SW10003', 25],
  ],
  gnumeric: [
    ['DC-LON', 'SW10208', 529],
    ['DC-MAN', 'SW10235', 0],
    ['DC-LON', 'SW100755036993', 39],
  ],
  openpyxl: [
    ['DC-LON', 'SW10002.3', 15],
    ['DC-MAN', 'SW10004', 5],
    ['DC-LON', 'SW10006', 20],
  ],
  xlsxwriter: [
    ['DC-MAN', 'SW10001', 0],
    ['DC-MAN', 'SW10003', 25],
    ['DC-LON', 'SW10004', 5],
  ],
  sheetjs: [
    ['DC-LON', 'SW10090.1', 67],
    ['DC-MAN', 'SW10090.2', 67],
    ['DC-LON', 'SW10023', 0],
  ],
};

const SKUS = new Set([
  ...WRITERS.flatMap((w) => [...Object.keys(COUNT[w]), NOT_STOCK[w]]),
  ...WRITERS.flatMap((w) => MONTHLY[w].map(([, sku]) => sku)),
]);

let h: Harness;

beforeAll(async () => {
  h = await startHarness('real-workbooks', { products: 10 });
  const store = h.sim.store;
  const brand = store.brands.list()[0]!.name;
  for (const sku of SKUS) store.addProduct({ sku, name: sku, brand });
  // A product starts at 0: where the file means 0, or nothing, the portal holds 1 before.
  for (const w of WRITERS) {
    for (const [sku, q] of Object.entries(COUNT[w])) if (q === 0) store.setFactoryStock(sku, 1);
    store.setFactoryStock(NOT_STOCK[w], 1);
    for (const [code, sku, q] of MONTHLY[w]) if (q === 0) store.setDcStock(code, sku, 1);
  }
  const profilesFile = join(h.box.dataDir, 'profiles.json');
  writeFileSync(profilesFile, JSON.stringify({ profiles: exampleProfiles(['workbooks']) }));
  h.clock.advance(TODAY - h.clock.now());
  await h.start({ INBOX_PROFILES_FILE: profilesFile, INBOX_STABILITY_MS: '50', LOG_LEVEL: 'info' });
  dropCopies(
    h,
    REAL_FILES,
    WRITERS.flatMap((w) => [`${w}-count.xlsx`, `${w}-monthly.xlsx`]),
    new Date(TODAY),
  );
}, 30_000);

afterAll(async () => {
  await h?.cleanup();
});

describe.each(WRITERS)('a workbook written by %s, through the daemon', (writer) => {
  it('the count: second sheet, two-row merged header, lots expired or not and added up, digit SKUs, a SKU list rejected, a service skipped', async () => {
    expect(await reportOf(h, `${writer}-count.xlsx`)).toMatchObject({
      profile: '*-count.xlsx',
      format: 'xlsx',
      kind: 'factory_stock',
      headerLine: 4,
      rowsRead: 10,
      rowsAccepted: 8,
      skipped: 1,
      summed: 1,
      // The older lot (line 8, expired: 0) added to the first (line 6).
      duplicates: {
        rows: 1,
        keys: [{ key: `factory:${Object.keys(COUNT[writer])[0]}`, lines: [6, 8] }],
      },
      rowsRejected: 1,
      rejected: [{ line: 13, field: '(row)', reason: 'the SKU cell holds a list of SKUs' }],
      ignoredColumns: ['bin location', 'lot number'],
    });
    await portalHolds(factoryValues(h, COUNT[writer]));
    expect(portalReads(h).factory(NOT_STOCK[writer])).toBe(1);
  });

  it('the monthly report: a key of two columns, the centre under an empty header cell, the last End Stock', async () => {
    expect(await reportOf(h, `${writer}-monthly.xlsx`)).toMatchObject({
      profile: '*-monthly.xlsx',
      format: 'xlsx',
      kind: 'dc_stock',
      headerLine: 1,
      rowsRead: 3,
      rowsAccepted: 3,
      rowsRejected: 0,
      clamped: writer === 'xlsxwriter' ? 1 : 0,
      ignoredColumns: ['description', 'end stock'],
    });
    const { dc } = portalReads(h);
    await portalHolds(
      MONTHLY[writer].map(([code, sku, q]): Expected => [() => dc(code, sku), q, `${code}:${sku}`]),
    );
  });
});
