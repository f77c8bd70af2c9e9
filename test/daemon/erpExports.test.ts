import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import ExcelJS from 'exceljs';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import type { LogLine } from '../helpers/daemonProcess.ts';
import { reportOf } from '../helpers/realFiles.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { cp1252, utf16le } from '../inventory/formats/helpers.ts';

/**
 * ERP exports through the running daemon (a child process) against the simulator: real bytes
 * dropped into a real inbox/ as an ERP would (temp name, then rename), read with the profiles of
 * INBOX_PROFILES_FILE, pushed to the portal; full exports zero what they omit.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

/** Writes bytes into inbox/ under a temp name, then renames them into view. */
function dropBytes(box: Harness['box'], name: string, bytes: Buffer): void {
  const temp = join(box.dataDir, 'inbox', `.${name}.tmp`);
  writeFileSync(temp, bytes);
  renameSync(temp, join(box.dataDir, 'inbox', name));
}

const PROFILES = {
  profiles: [
    {
      match: 'LAGER_*.TXT',
      headerLine: 2,
      decimal: ',',
      negative: 'zero',
      columns: { sku: 'Artikelnr', distribution_centre_code: 'Lager', stock_quantity: 'Menge' },
    },
    {
      match: 'items-*.txt',
      kind: 'factory',
      absent: 'zero',
      columns: { sku: 'Item No.', stock_quantity: 'Available' },
    },
    {
      match: 'stock-DC-DUB-*.xlsx',
      headerLine: 3,
      constants: { distribution_centre_code: 'DC-DUB' },
      columns: { sku: 'Item', stock_quantity: 'Qty' },
    },
  ],
};

/** The guard rails off (they would hold a full export that zeroes most of the range). */
const GUARD_OFF = { GUARD_ZERO_PERCENT: '100', GUARD_DROP_PERCENT: '100' };

describe('ERP exports through the daemon', () => {
  it('reads each export per its profile, pushes it, zeroes what a full export omits, and takes profile edits', async () => {
    // These full exports zero most of the range on purpose: the guard rails would hold them (as
    // they should hold a truncated export), so they are off here, as for a planned clear-out.
    h = await startHarness('erp-exports', { products: 60 }, GUARD_OFF);
    const harness = h;
    const sim = harness.sim;
    const profilesPath = join(harness.box.dataDir, 'profiles.json');
    writeFileSync(profilesPath, JSON.stringify(PROFILES));
    const d = await harness.start({ INBOX_PROFILES_FILE: profilesPath });
    const [s1, s2, s3, s4, s5] = [0, 1, 2, 3, 4].map(seededSku) as [
      string,
      string,
      string,
      string,
      string,
    ];

    // 1. Semicolons, Windows-1252, German headers under a title line, decimal commas, SAP minus.
    dropBytes(
      harness.box,
      'LAGER_20240501.TXT',
      cp1252(
        'Lagerbestand zum 01.05.2024 – Werk 1000\r\n' +
          'Artikelnr;Lager;Menge;Größe\r\n' +
          `${s1};DC-LON;1.234,00;groß\r\n` +
          `${s2};DC-MAN;"12";"klein; rund"\r\n` +
          `${s3};DC-LON;3-;mittel\r\n` +
          `${s4};DC-LON;2,5;Übergröße\r\n`,
      ),
    );
    const lager = await reportOf(harness, 'LAGER_20240501.TXT');
    expect(lager).toMatchObject({
      profile: 'LAGER_*.TXT',
      encoding: 'windows-1252',
      delimiter: ';',
      headerLine: 2,
      kind: 'dc_stock',
      rowsAccepted: 3,
      clamped: 1,
      ignoredColumns: ['größe'],
      rejected: [{ line: 6, reason: 'has a fraction (decimal mark ","): quantities are whole' }],
    });
    await waitUntil(
      () =>
        sim.store.dcStock('DC-LON', s1)?.stock_quantity === 1234 &&
        sim.store.dcStock('DC-MAN', s2)?.stock_quantity === 12 &&
        sim.store.dcStock('DC-LON', s3)?.stock_quantity === 0,
      { timeoutMs: 20_000, message: 'the portal to hold the LAGER quantities' },
    );

    // 2. A full factory export in Excel's Unicode text: the daemon has never read the portal's
    // factory stock, so it reads it first; every other product above 0 goes to 0.
    const others = [...sim.store.allFactoryStock()].filter(
      (r) => ![s1, s2, s3].includes(r.sku) && r.stock_quantity > 0,
    ).length;
    expect(others).toBeGreaterThan(40);
    dropBytes(
      harness.box,
      'items-20240501.txt',
      utf16le(
        `Item No.\tDescription\tAvailable\r\n${s1}\tBolt, zinc\t120\r\n${s2}\tNut “hex”\t1,500\r\n${s3}\tWasher\t0\r\n`,
      ),
    );
    const items = await reportOf(harness, 'items-20240501.txt');
    expect(items).toMatchObject({
      profile: 'items-*.txt',
      encoding: 'utf-16le',
      delimiter: '\t',
      kind: 'factory_stock',
      absentZeroed: others,
    });
    expect(d.lines.some((l) => l.event === 'file.reading_portal' && l.kind === 'factory')).toBe(
      true,
    );
    await waitUntil(
      () =>
        [...sim.store.allFactoryStock()].every(
          (r) =>
            r.stock_quantity ===
              ({ [s1]: 120, [s2]: 1500, [s3]: 0 } as Record<string, number>)[r.sku] ||
            (![s1, s2, s3].includes(r.sku) && r.stock_quantity === 0),
        ),
      { timeoutMs: 20_000, message: 'the portal to hold the full export, zeros elsewhere' },
    );

    // 3. A workbook with shared strings, its header on row 3, one centre for every row.
    const book = join(harness.box.dataDir, 'book.xlsx');
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: book, useSharedStrings: true });
    const ws = wb.addWorksheet('Bestand');
    ws.addRow(['Stock at Dublin']).commit();
    ws.addRow([]).commit();
    ws.addRow(['Item', 'Qty', 'Description']).commit();
    ws.addRow([s4, 7.0, 'bolt']).commit();
    ws.addRow([s5, '31', 'nut']).commit();
    await wb.commit();
    dropBytes(harness.box, 'stock-DC-DUB-1.xlsx', readFileSync(book));
    expect(await reportOf(harness, 'stock-DC-DUB-1.xlsx')).toMatchObject({
      format: 'xlsx',
      profile: 'stock-DC-DUB-*.xlsx',
      headerLine: 3,
      rowsAccepted: 2,
    });
    await waitUntil(
      () =>
        sim.store.dcStock('DC-DUB', s4)?.stock_quantity === 7 &&
        sim.store.dcStock('DC-DUB', s5)?.stock_quantity === 31,
      { timeoutMs: 20_000, message: 'the portal to hold the workbook quantities' },
    );

    // 4. A workbook that is not one goes to failed/ saying so.
    dropBytes(harness.box, 'stock-DC-DUB-2.xlsx', readFileSync(book).subarray(0, 300));
    expect(String((await reportOf(harness, 'stock-DC-DUB-2.xlsx', 'failed')).reason)).toMatch(
      /^not a readable \.xlsx workbook: /,
    );

    // 5. A valid profile edit is taken for the next file; a broken one keeps the last good.
    const edited = structuredClone(PROFILES);
    edited.profiles[0]!.columns.stock_quantity = 'Bestand';
    writeFileSync(profilesPath, JSON.stringify(edited));
    await d.runNow('settings-files'); // as the next look at the file (every 2 s) would
    await d.waitFor((l: LogLine) => l.event === 'profiles.reloaded', 10_000);
    writeFileSync(profilesPath, '{"profiles": [{"match": "LAGER_*.TXT", "decimal": ";"}]}');
    // Reported once read the same twice (not a file caught half-written).
    await d.runNow('settings-files');
    await d.runNow('settings-files');
    await d.waitFor((l: LogLine) => l.event === 'profiles.invalid', 10_000);
    dropBytes(
      harness.box,
      'LAGER_20240502.TXT',
      cp1252(`Bestand am 02.05.\r\nArtikelnr;Lager;Bestand\r\n${s5};DC-LON;2.000\r\n`),
    );
    expect(await reportOf(harness, 'LAGER_20240502.TXT')).toMatchObject({
      profile: 'LAGER_*.TXT',
      rowsAccepted: 1,
    });
    await waitUntil(() => sim.store.dcStock('DC-LON', s5)?.stock_quantity === 2000, {
      timeoutMs: 20_000,
      message: 'the portal to hold the edited profile’s quantity',
    });
    expect(await harness.stop()).toBe(0);
  });

  it('SNAPSHOT_ABSENT=zero reads the portal first and zeroes what the snapshot omits, DC stock only at the centres it names', async () => {
    h = await startHarness('erp-snapshot', { products: 40 }, GUARD_OFF);
    const harness = h;
    const sim = harness.sim;
    const snapshot = join(harness.box.dataDir, 'erp.db');
    const [s1, s2] = [seededSku(0), seededSku(1)];
    const db = new Database(snapshot);
    db.exec(`CREATE TABLE factory_stock (sku TEXT, stock_quantity INTEGER);
             CREATE TABLE dc_stock (distribution_centre_code TEXT, sku TEXT, stock_quantity INTEGER);`);
    db.prepare('INSERT INTO factory_stock VALUES (?, ?)').run(s1, 11);
    db.prepare('INSERT INTO dc_stock VALUES (?, ?, ?)').run('DC-MAN', s2, 22);
    db.close();
    const lonBefore = [...sim.store.allDcStock()]
      .filter((r) => r.distribution_centre_code === 'DC-LON')
      .map((r) => [r.sku, r.stock_quantity] as const);

    const d = await harness.start({ SNAPSHOT_DB: snapshot, SNAPSHOT_ABSENT: 'zero' });
    const read = await d.waitForEvent('snapshot.read', 30_000);
    expect(read.absentZeroed).toMatchObject({
      factory: expect.any(Number),
      dc: expect.any(Number),
    });
    await waitUntil(
      () =>
        [...sim.store.allFactoryStock()].every(
          (r) => r.stock_quantity === (r.sku === s1 ? 11 : 0),
        ) &&
        [...sim.store.allDcStock()]
          .filter((r) => r.distribution_centre_code === 'DC-MAN')
          .every((r) => r.stock_quantity === (r.sku === s2 ? 22 : 0)),
      { timeoutMs: 30_000, message: 'the portal to hold the snapshot, zeros elsewhere' },
    );
    // Other centres are not the snapshot's: untouched.
    for (const [sku, quantity] of lonBefore) {
      expect(sim.store.dcStock('DC-LON', sku)?.stock_quantity).toBe(quantity);
    }
    expect(d.lines.filter((l) => l.event === 'snapshot.reading_portal').map((l) => l.kind)).toEqual(
      ['factory', 'dc'],
    );
    expect(await harness.stop()).toBe(0);
  });
});
