import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planCommand } from '../../src/cli/commands/planCommand.ts';
import { replaceDistributionCentres } from '../../src/state/stock/distributionCentres.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

let env: IngestEnv;
let work: string;
beforeEach(() => {
  env = makeIngestEnv('plan-rules');
  work = join(env.dataDir, 'work');
  mkdirSync(work);
  const remote = env.db.prepare(
    'INSERT INTO remote_stock (kind, dc, sku, quantity, seen_at) VALUES (?, ?, ?, ?, 0)',
  );
  remote.run('dc', 'DC1', 'A', 8); // what the buffer leaves of 10
  remote.run('dc', 'DC1', 'B', 3);
  replaceDistributionCentres(env.db, [{ code: 'DC1', is_active: true }], 0);
});
afterEach(async () => {
  await env.cleanup();
});

async function plan(args: string[], extraEnv: Record<string, string>) {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const code = await planCommand.run({
    argv: args,
    env: { SYNC_DATA_DIR: env.dataDir, ...extraEnv },
    stdout,
    stderr: new PassThrough(),
    signal: new AbortController().signal,
  });
  return { code, out };
}

describe('plan FILE with STOCK_RULES_FILE', () => {
  it('maps locations, shows ERP and offered quantities and the rules, compares offered ones', async () => {
    const rules = join(work, 'rules.json');
    writeFileSync(
      rules,
      JSON.stringify({
        locations: { 'WH-1': 'DC1' },
        rules: [
          { sku: 'DISC-*', exclude: true },
          { kind: 'dc', dc: 'DC1', buffer: 2 },
        ],
      }),
    );
    const csv = join(work, 'dc.csv');
    writeFileSync(
      csv,
      'distribution_centre_code,sku,stock_quantity\nWH-1,A,10\nDC1,B,10\nWH-1,DISC-1,5\nWH-2,C,1\n',
    );
    const r = await plan([csv], { STOCK_RULES_FILE: rules });
    expect(r.code).toBe(0);
    expect(r.out).toContain('locations mapped   2 rows');
    expect(r.out).toContain('units              ERP 25, offered 16');
    expect(r.out).toContain('offered otherwise  2 keys');
    expect(r.out).toContain('excluded           1 keys (never pushed)');
    expect(r.out).toContain('1 keys by rules[0]: sku DISC-* → exclude');
    expect(r.out).toContain('2 keys by rules[1]: kind dc, dc DC1 → buffer 2');
    expect(r.out).toContain('e.g. dc:DC1:A: ERP 10 → offered 8 (rules[1])');
    expect(r.out).toContain('e.g. dc:DC1:DISC-1: ERP 5 → excluded (rules[0])');
    // A is offered 8, as the portal holds; B 8 against 3; DISC-1 is never compared.
    expect(r.out).toMatch(/changed\s+1\n/);
    expect(r.out).toMatch(/unchanged\s+1\n/);
    expect(r.out).toMatch(/unknown to portal\s+0\n/);
    expect(r.out).toContain(
      'line 5: distribution_centre_code unknown distribution centre ("WH-2")',
    );

    const json = JSON.parse((await plan([csv, '--json'], { STOCK_RULES_FILE: rules })).out);
    expect(json.locationsMapped).toBe(2);
    expect(json.stock.offers).toMatchObject({ erpUnits: 25, offeredUnits: 16, excluded: 1 });
  });

  it('a bad rules file is a configuration error naming it', async () => {
    const rules = join(work, 'rules.json');
    writeFileSync(rules, '{"rules": [{"buffer": -1}]}');
    const csv = join(work, 'f.csv');
    writeFileSync(csv, 'sku,stock_quantity\nA,1\n');
    await expect(plan([csv], { STOCK_RULES_FILE: rules })).rejects.toThrow(
      /STOCK_RULES_FILE: .*rules\.json: rules\[0\], buffer: buffer must be 0 or more/,
    );
  });
});

describe('plan FILE with a profile of expressions', () => {
  it('lists the expressions, conditions and places, and counts what they make of the rows', async () => {
    const profiles = join(work, 'profiles.json');
    writeFileSync(
      profiles,
      JSON.stringify({
        profiles: [
          {
            match: 'variants-*.csv',
            kind: 'dc',
            dataLine: 3,
            columns: {
              sku: { expr: "row['Name'] + '-' + row['Size']" },
              distribution_centre_code: { letter: 'C' },
              stock_quantity: { name: 'Qty', occurrence: 'last' },
            },
            when: [
              // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
              { if: "row['Name'].contains(',')", then: 'reject', reason: 'a list of SKUs' },
              // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
              { if: "row['Type'] != 'Inventory'", then: 'skip' },
            ],
          },
        ],
      }),
    );
    const csv = join(work, 'variants-1.csv');
    writeFileSync(
      csv,
      'Name,Size,,Qty,Qty,Type\n(units),,,,,\nA,M,DC1,1,4,Inventory\n"A,B",M,DC1,1,1,Inventory\nC,S,DC1,1,1,Service\n',
    );
    const r = await plan([csv], { INBOX_PROFILES_FILE: profiles });
    expect(r.out).toContain(
      "profile rules      data from line 3; sku = row['Name'] + '-' + row['Size']; distribution_centre_code from column C; stock_quantity from the last \"Qty\"; when if row['Name'].contains(',') → reject (a list of SKUs); when if row['Type'] != 'Inventory' → skip",
    );
    expect(r.out).toContain('rows read 3, accepted 1, rejected 1');
    expect(r.out).toContain('skipped 1');
    expect(r.out).toContain('line 4: (row) a list of SKUs');
  });
});
