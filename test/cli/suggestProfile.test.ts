/**
 * `plan FILE --suggest-profile [--json]` through `main`, in this process: what it prints, the
 * shape of its JSON, and plan's exit codes.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cliInProcess.ts';

const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-suggest-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dataDir = join(dir, 'data');
const env = { SYNC_DATA_DIR: dataDir };

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('plan FILE --suggest-profile', () => {
  const stock = file(
    'bestand_2024-05-01.csv',
    'Bestandsliste Werk 1000\nArtikelnr;Menge;Status\nA-1;5;aktiv\nA-2;-2;aktiv\nA-3;7;gesperrt\n',
  );

  it('prints the profile, the first rows as it reads them and the notes; writes nothing', async () => {
    const r = await runCliInProcess(['plan', stock, '--suggest-profile'], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(
      `${stock}: a profile for it (add it to the profiles of INBOX_PROFILES_FILE)`,
    );
    expect(r.stdout).toContain(
      [
        '{',
        '  "match": "bestand_*.csv",',
        '  "kind": "factory",',
        '  "headerLine": 2,',
        '  "columns": { "sku": "Artikelnr", "stock_quantity": "Menge" },',
        '  "negative": "zero",',
        '  "when": [{ "column": "Status", "equals": ["gesperrt"], "then": "zero" }]',
        '}',
      ].join('\n'),
    );
    expect(r.stdout).toContain(
      [
        'The first rows as this profile reads them:',
        '  line 3    factory:A-1 = 5',
        '  line 4    factory:A-2 = 0',
        '  line 5    factory:A-3 = 0',
      ].join('\n'),
    );
    expect(r.stdout).toMatch(/Notes:\n {2}- The header is on line 2; line 1 above it is a title/);
    // Nothing written: not even the data dir.
    expect(readdirSync(dir).sort()).toEqual(['bestand_2024-05-01.csv']);
  });

  it('--json prints one object: profile, rows, notes', async () => {
    const r = await runCliInProcess(['plan', stock, '--suggest-profile', '--json'], env);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['profile', 'rows', 'notes']);
    expect(out.profile).toMatchObject({ match: 'bestand_*.csv', headerLine: 2 });
    expect(out.rows).toEqual([
      { line: 3, outcome: 'accepted', key: 'factory:A-1', quantity: 5 },
      { line: 4, outcome: 'accepted', key: 'factory:A-2', quantity: 0 },
      { line: 5, outcome: 'accepted', key: 'factory:A-3', quantity: 0 },
    ]);
    expect((out.notes as string[]).length).toBeGreaterThan(0);
  });

  it('exits 4 when no profile can be suggested, saying why; 2 without a FILE', async () => {
    const none = await runCliInProcess(
      ['plan', file('dates.csv', 'Date,Amount\n2024-05-01,12.50\n'), '--suggest-profile'],
      env,
    );
    expect(none.code).toBe(4);
    expect(none.stdout).toContain('dates.csv: no profile could be suggested');
    expect(none.stdout).toContain('No column looks like a SKU');
    const broken = await runCliInProcess(
      ['plan', file('broken.xlsx', 'no zip'), '--suggest-profile', '--json'],
      env,
    );
    expect(broken.code).toBe(4);
    expect(JSON.parse(broken.stdout)).toMatchObject({ profile: null, rows: [] });
    expect((await runCliInProcess(['plan', '--suggest-profile'], env)).code).toBe(2);
  });

  it('is in the command’s help', async () => {
    const r = await runCliInProcess(['plan', '--help'], env);
    expect(r.stdout).toContain('Usage: supplier-sync plan FILE [--suggest-profile] [--json]');
    expect(r.stdout).toContain('--suggest-profile');
  });
});
