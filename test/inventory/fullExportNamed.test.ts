import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Profile, profilesFileSchema } from '../../src/config/profiles.ts';
import { planFile } from '../../src/inventory/plan/planFile.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { RemoteStock } from '../../src/state/stock/remoteStock.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

/**
 * A full export (`absent: "zero"`) never zeroes a key that a row of the file names, even when
 * that row was rejected as a bad value: a typo in one cell must not take a product off sale
 * (product contract, "ERP exports as they come").
 */

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('full-export-named');
  env.portal.centres.push({ code: 'DC1', is_active: true }, { code: 'DC2', is_active: true });
});
afterEach(async () => {
  await env.cleanup();
});

const full = (match: string): Profile[] =>
  profilesFileSchema.parse({ profiles: [{ match, absent: 'zero' }] }).profiles;

function portalHolds(rows: ReadonlyArray<readonly ['factory' | 'dc', string, string, number]>) {
  new RemoteStock(env.db).storeRead(
    rows.map(([kind, dc, sku, quantity]) => ({ kind, dc, sku, quantity, platformSku: null })),
    1,
  );
  new KeyValueStore(env.db).set('remote.read_at.factory', 1);
  new KeyValueStore(env.db).set('remote.read_at.dc', 1);
}

const desired = () =>
  Object.fromEntries(
    env
      .desired()
      .map((r) => [r.kind === 'dc' ? `dc:${r.dc}:${r.sku}` : `factory:${r.sku}`, r.quantity]),
  );

describe('a full export and the keys its rejected rows name', () => {
  it('does not zero a factory key whose only row has a bad quantity, nor one with an empty cell', async () => {
    portalHolds([
      ['factory', '', 'A', 5],
      ['factory', '', 'TYPO', 7],
      ['factory', '', 'EMPTY', 8],
      ['factory', '', 'GONE', 9],
    ]);
    env.drop('items.csv', 'sku,stock_quantity\nA,4\nTYPO,1O\nEMPTY,\n');
    const out = await env.process('items.csv', { profiles: () => full('items.csv') });
    expect(out).toMatchObject({ status: 'processed', rowsAccepted: 1 });
    expect(env.report(out)).toMatchObject({ absentZeroed: 1, rowsRejected: 2 });
    // TYPO and EMPTY keep what the portal holds; only GONE, which no row names, is zeroed.
    expect(desired()).toEqual({ 'factory:A': 4, 'factory:GONE': 0 });
  });

  it('does not zero a DC key whose row was rejected, and counts its centre as named', async () => {
    portalHolds([
      ['dc', 'DC1', 'A', 5],
      ['dc', 'DC2', 'B', 7],
      ['dc', 'DC2', 'C', 3],
    ]);
    env.drop('dc.csv', 'distribution_centre_code,sku,stock_quantity\nDC1,A,6\nDC2,B,-x\n');
    const out = await env.process('dc.csv', { profiles: () => full('dc.csv') });
    expect(env.report(out)).toMatchObject({ absentZeroed: 1, rowsRejected: 1 });
    expect(desired()).toEqual({ 'dc:DC1:A': 6, 'dc:DC2:C': 0 });
  });

  it('does not zero a key whose subtracted column is bad, and its rejected row names the key', async () => {
    portalHolds([
      ['factory', '', 'A', 5],
      ['factory', '', 'RES', 7],
      ['factory', '', 'GONE', 9],
    ]);
    env.drop('onhand.csv', 'sku,stock_quantity,reserved\nA,4,1\nRES,6,two\n');
    const profiles = profilesFileSchema.parse({
      profiles: [{ match: 'onhand.csv', absent: 'zero', subtract: ['reserved'] }],
    }).profiles;
    const out = await env.process('onhand.csv', { profiles: () => profiles });
    expect(env.report(out)).toMatchObject({
      absentZeroed: 1,
      rowsRejected: 1,
      rejected: [{ line: 3, key: 'factory:RES', field: 'reserved' }],
    });
    expect(desired()).toEqual({ 'factory:A': 3, 'factory:GONE': 0 });
  });

  it('plan counts the same keys as zeroed', async () => {
    portalHolds([
      ['factory', '', 'A', 5],
      ['factory', '', 'TYPO', 7],
      ['factory', '', 'GONE', 9],
    ]);
    env.drop('items.csv', 'sku,stock_quantity\nA,4\nTYPO,1O\n');
    const plan = await planFile(`${env.paths.inbox}/items.csv`, {
      dataDir: env.dataDir,
      bulkBatchSize: 1000,
      maxSkuLength: 64,
      profiles: full('items.csv'),
    });
    expect(plan).toMatchObject({ absentZeroed: 1 });
  });
});
