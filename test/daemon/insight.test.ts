import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { outboxOrders } from '../helpers/outboxFiles.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const json = (output: string) => JSON.parse(output.slice(output.indexOf('{')));

/** `HH:MM:SS` of an instant in a time zone. */
const localClock = (at: number, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(at);

describe('insight through the running daemon', () => {
  it('status says when the pending differences will be pushed at the budget left', async () => {
    h = await startHarness(
      'eta',
      { maxBulkItems: 10 },
      {
        BULK_BATCH_SIZE: '10',
        API_REQUESTS_PER_HOUR: '8',
        API_STOCK_RESERVE: '2',
        API_RECONCILE_RESERVE: '0',
        SYNC_TIMEZONE: 'Europe/Berlin',
      },
    );
    await h.start();
    h.drop(
      'big.csv',
      factoryCsv(Array.from({ length: 100 }, (_, i) => [seededSku(i), 7000 + i] as const)),
    );
    await h.daemon!.waitForEvent('queue.paused', 20_000);

    const s = json((await h.cli(['status', '--json'])).output);
    const pending = s.pendingDifferences.factory;
    expect(pending).toBeGreaterThan(0);
    expect(s.eta.calls).toBe(Math.ceil(pending / 10));
    // The stock lane's share of the hour is spent: the last call waits for old ones to leave.
    const at = Date.parse(s.eta.at);
    expect(at).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(at).toBeLessThan(Date.now() + 3 * 3_600_000);
    expect(s.health.verdict).toBe('degraded');

    const text = (await h.cli(['status'])).output;
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^supplier-sync: DEGRADED: the call budget of stock pushes is spent/);
    expect(text).toMatch(
      /pending\s+\d+ factory and 0 DC differences since \d\d:\d\d \((now|\d+ s ago)\)/,
    );
    expect(text).toMatch(/done by \d\d:\d\d \(in (59 min|1 h)\)/);
    // No raw JSON and no epoch milliseconds anywhere in what a person reads.
    expect(text).not.toMatch(/[{}]|\b1[78]\d{11}\b/);
  });

  it('warns once at the shipments deadline naming the unconfirmed orders, and names each late one once', async () => {
    // A zone other than UTC, not near its midnight ("today" must not end during the test).
    const zone = ['Asia/Kolkata', 'America/New_York'].find(
      (z) => !['23', '00'].includes(localClock(Date.now(), z).slice(0, 2)),
    )!;
    // Today's deadline has just passed (its tick will not come again today): the deadline's
    // work is asked for out of turn once the confirmations have landed, as its tick would.
    h = await startHarness(
      'deadline',
      {},
      {
        SYNC_TIMEZONE: zone,
        SHIPMENTS_DEADLINE: localClock(Date.now() - 1000, zone),
        SHIPMENTS_CONFIRM_WARN_MS: '60000',
      },
    );
    await h.start();
    await waitUntil(() => outboxOrders(h.box.dataDir).length >= 3, { timeoutMs: 15_000 });
    const handed = outboxOrders(h.box.dataDir);
    const [a, b] = handed;
    h.drop('confirm.csv', `order_number,carrier,tracking_number\n${a},DPD,T-1\n${b},DPD,T-2\n`);
    await h.daemon!.waitFor(
      (l) => l.event === 'shipment.confirmed' && l.order_number === b,
      15_000,
      'the two confirmations',
    );
    await h.daemon!.waitFor((l) => l.event === 'shipment.confirmed' && l.order_number === a);

    await h.runNow('shipments-deadline');
    const overdue = await h.daemon!.waitForEvent('shipments.overdue');
    const unconfirmed = handed.filter((o) => o !== a && o !== b).sort();
    expect(overdue.level).toBe('warn');
    expect([...(overdue.orders as string[])].sort()).toEqual(unconfirmed);
    expect(overdue.count).toBe(unconfirmed.length);

    // A minute later (the daemon's clock moved), each late shipment is named once; a confirmed
    // one never (the watch's tick, every 5 s, asked for at once).
    expect(h.daemon!.lines.filter((l) => l.event === 'shipments.unconfirmed')).toEqual([]);
    h.clock.advance(61_000);
    await h.runNow('shipments-watch');
    await waitUntil(
      () =>
        h
          .daemon!.lines.filter((l) => l.event === 'shipments.unconfirmed')
          .flatMap((l) => l.orders as string[]).length >= unconfirmed.length,
      { timeoutMs: 15_000, message: 'every late shipment named' },
    );
    const named = h
      .daemon!.lines.filter((l) => l.event === 'shipments.unconfirmed')
      .flatMap((l) => l.orders as string[]);
    expect([...named].sort()).toEqual(unconfirmed);

    const s = json((await h.cli(['status', '--json'])).output);
    expect([...s.shipments.overdue].sort()).toEqual(unconfirmed);
    expect(s.health.verdict).toBe('needs a person');
    const text = (await h.cli(['status'])).output;
    expect(text.split('\n')[0]).toMatch(
      new RegExp(
        `NEEDS A PERSON: ${unconfirmed.length} shipment\\(s\\) handed to the ERP today are not confirmed by`,
      ),
    );
    expect(h.daemon!.lines.filter((l) => l.event === 'shipments.overdue')).toHaveLength(1);
  });
});
