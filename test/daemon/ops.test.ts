import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { freePort } from '../setup/redis.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

describe('operations endpoint of the running daemon', () => {
  it('serves /healthz and /metrics when HTTP_PORT is set, and health passes', async () => {
    const port = await freePort();
    h = await startHarness('ops', {}, { HTTP_PORT: String(port) });
    await h.start();
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
    expect(await h.stop()).toBe(0);
  });
});
