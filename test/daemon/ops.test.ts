import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { freePort } from '../setup/redis.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

/** An IPv4 address of this machine that is not loopback, if it has one. */
function outsideAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

/** 'refused' when nothing answers at that address, else the HTTP status. */
async function statusAt(host: string, port: number): Promise<number | 'refused'> {
  try {
    return (await fetch(`http://${host}:${port}/healthz`, { signal: AbortSignal.timeout(5000) }))
      .status;
  } catch {
    return 'refused';
  }
}

describe('operations endpoint of the running daemon', () => {
  it('serves /healthz and /metrics when HTTP_PORT is set, and health passes', async () => {
    const port = await freePort();
    h = await startHarness('ops', {}, { HTTP_PORT: String(port) });
    const d = await h.start();
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    h.drop('s.csv', factoryCsv([[seededSku(0), 77]]));
    await waitUntil(() => h.sim.store.factoryStock(seededSku(0))?.stock_quantity === 77, {
      timeoutMs: 15_000,
    });
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/supplier_sync_api_calls_last_hour \d+/);
    const cli = await h.cli(['health']);
    expect(cli.code).toBe(0);
    // HTTP_HOST defaults to 127.0.0.1 (#13): nothing answers on the machine's other addresses.
    expect((await d.waitForEvent('http.listening')).host).toBe('127.0.0.1');
    const outside = outsideAddress();
    if (outside !== undefined) expect(await statusAt(outside, port)).toBe('refused');
    expect(await h.stop()).toBe(0);
  });

  it('listens on every interface with HTTP_HOST=0.0.0.0 (as the container image sets it)', async () => {
    const port = await freePort();
    h = await startHarness('ops-any', {}, { HTTP_PORT: String(port), HTTP_HOST: '0.0.0.0' });
    const d = await h.start();
    expect((await d.waitForEvent('http.listening')).host).toBe('0.0.0.0');
    expect(await statusAt('127.0.0.1', port)).not.toBe('refused');
    const outside = outsideAddress();
    if (outside !== undefined) expect(await statusAt(outside, port)).not.toBe('refused');
    expect(await h.stop()).toBe(0);
  });
});
