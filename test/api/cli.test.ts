import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCommand } from '../../src/cli/commands/apiCommand.ts';
import { UsageError } from '../../src/cli/usage.ts';
import type { Simulator } from '../../src/simulator/index.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';
import { DEFAULT_EMAIL, DEFAULT_PASSWORD, simulator } from './helpers.ts';

let sim: Simulator;
let sandbox: Sandbox;
const stderrText: string[] = [];

beforeAll(async () => {
  sim = await simulator({ products: 230 });
  sandbox = makeSandbox('api-cli');
});

afterAll(async () => {
  const all = stderrText.join('');
  expect(all).not.toContain(DEFAULT_PASSWORD);
  expect(all).not.toMatch(/\d+\|[A-Za-z0-9_-]{40}/);
  await sandbox.cleanup();
  await sim.close();
});

async function api(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return apiWith({}, ...argv);
}

async function apiWith(
  extraEnv: Record<string, string>,
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (c) => out.push(String(c)));
  stderr.on('data', (c) => err.push(String(c)));
  const code = await apiCommand.run({
    argv,
    env: {
      SUPPLIER_API_URL: sim.baseUrl,
      SUPPLIER_EMAIL: DEFAULT_EMAIL,
      SUPPLIER_PASSWORD: DEFAULT_PASSWORD,
      SYNC_DATA_DIR: sandbox.dataDir,
      API_BACKOFF_BASE_MS: '5',
      API_BACKOFF_MAX_MS: '20',
      ...extraEnv,
    },
    stdout,
    stderr,
    signal: new AbortController().signal,
  });
  stderrText.push(...err);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('supplier-sync api', () => {
  it('the usage lists every resource and action', () => {
    for (const line of [
      'brands list',
      'brands create',
      'brands update ID',
      'brands delete ID',
      'products list',
      'products get',
      'products create',
      'sites list',
      'distribution-centres list',
      'tax-rates list',
      'dc-stock list',
      'dc-stock update',
      'dc-stock bulk-update',
      'factory-stock list',
      'factory-stock update',
      'factory-stock bulk-update',
      'shipments list',
      'shipments ready-to-ship',
      'shipments get ORDER',
      'shipments shipped ORDER',
      'shipments collected ORDER',
      'budget status',
      'login-block clear',
    ]) {
      expect(apiCommand.usage).toContain(line);
    }
    expect(apiCommand.name).toBe('api');
  });

  it('prints reference data as JSON and reuses the stored token', async () => {
    const sites = await api('sites', 'list');
    expect(sites.code).toBe(0);
    expect(JSON.parse(sites.stdout)[0]).toHaveProperty('code');
    const dcs = await api('distribution-centres', 'list');
    expect(JSON.parse(dcs.stdout).length).toBeGreaterThan(0);
    expect(sim.stats().logins).toBe(1);
  });

  it('prints one page, or streams every item as JSON lines with --all', async () => {
    const page = JSON.parse((await api('products', 'list', '--scope', 'factory_stock')).stdout);
    expect(page.data).toHaveLength(100);
    expect(page.next_cursor).toBeTypeOf('string');
    const next = JSON.parse((await api('products', 'list', '--cursor', page.next_cursor)).stdout);
    expect(next.data[0].sku).not.toBe(page.data[0].sku);

    const all = await api('products', 'list', '--all');
    const lines = all.stdout.trim().split('\n');
    expect(lines).toHaveLength(230);
    expect(JSON.parse(lines[229]!)).toHaveProperty('sku');
    expect(all.stderr).toContain('"event":"api.page"');

    const filtered = await api('factory-stock', 'list', '--stock-quantity-lte', '20', '--all');
    const rows = filtered.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.every((r) => r.stock_quantity <= 20)).toBe(true);
  });

  it('honours --per-page on every paged list, one page or all; refuses it elsewhere', async () => {
    for (const resource of ['products', 'dc-stock', 'factory-stock']) {
      const r = await api(resource, 'list', '--per-page', '3');
      expect(r.code, r.stderr).toBe(0);
      const page = JSON.parse(r.stdout);
      expect(page.data, resource).toHaveLength(3);
      expect(page.next_cursor, resource).toBeTypeOf('string');
      const next = JSON.parse(
        (await api(resource, 'list', '--per-page', '3', '--cursor', page.next_cursor)).stdout,
      );
      expect(next.data, resource).toHaveLength(3);
      expect(next.data[0], resource).not.toEqual(page.data[0]);
    }
    const all = await api('products', 'list', '--all', '--per-page', '50');
    expect(all.stdout.trim().split('\n')).toHaveLength(230);
    expect(all.stderr.match(/"event":"api\.page"/g)).toHaveLength(5);
    await expect(api('sites', 'list', '--per-page', '3')).rejects.toThrow(
      /--per-page applies to the paged lists only/,
    );
    await expect(api('products', 'list', '--per-page', '0')).rejects.toThrow(UsageError);
  });

  it('sends bodies from --json-body and --body-file', async () => {
    const created = await api('brands', 'create', '--json-body', '{"name":"From CLI"}');
    expect(created.code).toBe(0);
    const id = JSON.parse(created.stdout).brand_id;
    expect(
      (await api('brands', 'update', String(id), '--json-body', '{"name":"Renamed"}')).code,
    ).toBe(0);
    const [row] = JSON.parse((await api('factory-stock', 'list')).stdout).data;
    const file = join(sandbox.dataDir, 'bulk.json');
    writeFileSync(
      file,
      JSON.stringify([
        { sku: row.sku, stock_quantity: 11 },
        { sku: 'NOPE', stock_quantity: 1 },
      ]),
    );
    const bulk = JSON.parse(
      (await api('factory-stock', 'bulk-update', '--body-file', file)).stdout,
    );
    expect(bulk.updated).toHaveLength(1);
    expect(bulk.errors).toHaveLength(1);
    expect(bulk.missing).toEqual([]);
    expect(sim.store.factoryStock(row.sku)?.stock_quantity).toBe(11);
    expect((await api('brands', 'delete', String(id))).code).toBe(0);
  });

  it('says where a body is not JSON, never what it holds', async () => {
    const file = join(sandbox.dataDir, 'broken.json');
    writeFileSync(file, '[{"sku": "A", "stock_quantity": 1},\n {"note": "S3cretPortalPW!" oops}]');
    const err = await api('factory-stock', 'bulk-update', '--body-file', file).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect(err?.message).toBe(
      `the request body in ${file} is not valid JSON at line 2, column ${' {"note": "S3cretPortalPW!" '.length + 1}: ${err?.message.split(': ').at(-1)}`,
    );
    expect(err?.message).not.toContain('S3cret');
    expect(err?.message).not.toContain('\n');
  });

  it('marks a shipment shipped and reads it back', async () => {
    const [s] = JSON.parse((await api('shipments', 'ready-to-ship')).stdout);
    const body = JSON.stringify({ carrier: 'DHL', tracking_number: 'CLI-1' });
    expect((await api('shipments', 'shipped', s.order_number, '--json-body', body)).code).toBe(0);
    const one = JSON.parse((await api('shipments', 'get', s.order_number)).stdout);
    expect(one.tracking_number).toBe('CLI-1');
  });

  it('a bulk update that stops part-way prints what was answered and the items not sent, and exits 1', async () => {
    const used = JSON.parse((await api('budget', 'status')).stdout).usedLastHour as number;
    const rows = JSON.parse((await api('factory-stock', 'list')).stdout).data.slice(0, 3);
    const body = JSON.stringify(
      rows.map((r: { sku: string }) => ({ sku: r.sku, stock_quantity: 321 })),
    );
    // Batches of one, and a budget with room for one more call (the list above was the last
    // counted): the second batch meets the spent budget.
    const r = await apiWith(
      { BULK_BATCH_SIZE: '1', API_REQUESTS_PER_HOUR: String(used + 2) },
      'factory-stock',
      'bulk-update',
      '--lane',
      'shipments',
      '--json-body',
      body,
    );
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.updated.map((u: { sku: string }) => u.sku)).toEqual([rows[0].sku]);
    expect(out.unsent.map((u: { sku: string }) => u.sku)).toEqual([rows[1].sku, rows[2].sku]);
    expect(r.stderr).toContain('"code":"E_BUDGET"');
  });

  it('a portal error exits 1 with the typed error on stderr', async () => {
    const r = await api('products', 'get', 'NO-SUCH-PRODUCT');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('"code":"E_HTTP"');
    expect(r.stderr).toContain('"status":404');
  });

  it('shows the budget without calling the portal', async () => {
    const before = sim.stats().requests.length;
    const r = await api('budget', 'status');
    expect(JSON.parse(r.stdout)).toMatchObject({ limit: 3600 });
    expect(JSON.parse(r.stdout).usedLastHour).toBeGreaterThan(5);
    expect(sim.stats().requests.length).toBe(before);
  });

  it('bad usage is a UsageError', async () => {
    await expect(api('nope', 'list')).rejects.toBeInstanceOf(UsageError);
    await expect(api('brands', 'explode')).rejects.toBeInstanceOf(UsageError);
    await expect(api('brands', 'update', 'x', '--json-body', '{}')).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(api('brands', 'create', '--json-body', '{nope')).rejects.toBeInstanceOf(
      UsageError,
    );
  });
});
