/**
 * `pause` / `resume` (#30.2) against the running daemon: while paused files are still read and
 * applied, shipment polls go on, nothing is written to the portal; the pause survives a restart;
 * `status`, `health --json` and /metrics say it, since when and why.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { freePort } from '../setup/redis.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const json = (output: string) => JSON.parse(output.slice(output.search(/[[{]/)));
const portal = (i: number) => h.sim.store.factoryStock(seededSku(i))?.stock_quantity;
const writes = () => h.sim.stats().requests.filter((r) => r.route.endsWith('/bulk-update')).length;

describe('pause and resume', () => {
  it('while paused nothing is written (files read, polls go on), across a restart; status, health and metrics say so; resume pushes what waited', async () => {
    const port = await freePort();
    h = await startHarness('pause', {}, { HTTP_PORT: String(port) });
    // The figures are read every few seconds: read now, as the next refresh would.
    const metrics = async () => {
      await h.runNow('metrics');
      return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    };
    let d = await h.start();
    h.drop('first.csv', factoryCsv([[seededSku(1), 11]]));
    await waitUntil(() => portal(1) === 11, { message: 'the first file on the portal' });
    await h.waitForIdle();

    const before = Date.now();
    const paused = await h.cli(['pause', '--reason', 'ERP maintenance']);
    expect(paused.code, paused.output).toBe(0);
    expect(paused.output).toMatch(
      /^paused since .* \(ERP maintenance\): nothing is written to the portal until `supplier-sync resume`/,
    );
    // Done by the daemon, at the command's request.
    expect(d.lines.find((l) => l.event === 'sync.paused')).toMatchObject({
      reason: 'ERP maintenance',
    });
    const again = json((await h.cli(['pause', '--json'])).output);
    expect(again).toMatchObject({ reason: null, already: true });

    const writesBefore = writes();
    h.drop('while-paused.csv', factoryCsv([[seededSku(2), 22]]));
    await d.waitFor((l) => l.event === 'file.processed' && l.file === 'while-paused.csv');
    await d.waitForEvent('sync.push_paused');

    const status = json((await h.cli(['status', '--json'])).output);
    expect(status.paused.reason).toBeNull();
    expect(Date.parse(status.paused.since)).toBeGreaterThanOrEqual(before - 1000);
    expect(status.health.verdict).toBe('degraded');
    expect(status.health.reasons[0]).toMatch(/^pushes are paused: nothing is written/);
    expect(status.pendingDifferences.factory).toBe(1);
    const text = (await h.cli(['status'])).output;
    expect(text).toMatch(/\npaused +since /);
    const health = json((await h.cli(['health', '--json'])).output);
    expect(health.healthy).toBe(true);
    expect(health.paused).toEqual({ since: expect.any(String), reason: null });
    expect(health.paused.since).toBe(status.paused.since);
    await waitUntil(async () => /^supplier_sync_paused 1$/m.test(await metrics()), {
      message: 'supplier_sync_paused 1',
    });

    // A restart keeps it: still nothing written; the shipment poll goes on.
    expect(await h.stop()).toBe(0);
    d = await h.start();
    await h.runNow('recover');
    await h.runNow('shipments-poll');
    await d.waitForEvent('shipments.polled');
    await d.waitForEvent('sync.push_paused');
    expect(writes()).toBe(writesBefore);
    expect(portal(2)).not.toBe(22);

    const resumed = await h.cli(['resume']);
    expect(resumed.code, resumed.output).toBe(0);
    expect(resumed.output).toMatch(/^resumed: pushes paused since .* start again/);
    await waitUntil(() => portal(2) === 22, { message: 'what waited pushed once resumed' });
    expect(json((await h.cli(['status', '--json'])).output).paused).toBeNull();
    await waitUntil(async () => /^supplier_sync_paused 0$/m.test(await metrics()), {
      message: 'supplier_sync_paused 0',
    });
    expect((await h.cli(['resume'])).output).toMatch(/not paused: nothing to resume/);
  });
});
