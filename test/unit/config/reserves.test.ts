import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { laneReserve } from '../../../src/api/budget/budgetStore.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { runCliInProcess } from '../../helpers/cliInProcess.ts';
import { configError } from '../../helpers/configError.ts';

/** Issue #29, point 4: reserves are shares of API_REQUESTS_PER_HOUR, not absolute counts. */

const reserves = (env: Record<string, string>) => {
  const config = loadConfig({ env });
  return Object.fromEntries(
    (['shipments', 'poll', 'stock', 'operator', 'products', 'reconcile'] as const).map((lane) => [
      lane,
      laneReserve(lane, config),
    ]),
  );
};

describe('the budget reserves', () => {
  it('default to today’s values at 3,600 calls an hour and scale with the budget', () => {
    expect(reserves({})).toEqual({
      shipments: 0,
      poll: 900,
      stock: 300,
      operator: 300,
      products: 1200,
      reconcile: 900,
    });
    // 40 calls an hour: pushes keep 37 of them; polls leave 10 (3 for confirmations, 7 for pushes);
    // creations leave those and 3 of their own.
    expect(reserves({ API_REQUESTS_PER_HOUR: '40' })).toEqual({
      shipments: 0,
      poll: 10,
      stock: 3,
      operator: 3,
      products: 13,
      reconcile: 10,
    });
  });

  it('take a share or a whole number of calls', () => {
    const config = loadConfig({
      env: { API_STOCK_RESERVE: '10%', API_RECONCILE_RESERVE: '50', API_POLL_RESERVE: '12.5 %' },
    });
    expect(config.stockReserve).toBe('10%');
    expect(config.reconcileReserve).toBe(50);
    expect(laneReserve('stock', config)).toBe(360);
    expect(laneReserve('poll', config)).toBe(360 + 450);
    expect(laneReserve('reconcile', config)).toBe(50);
    for (const bad of ['lots', '-3', '101%', '5.5']) {
      const err = configError(() => loadConfig({ env: { API_STOCK_RESERVE: bad } }));
      expect(err.key).toBe('API_STOCK_RESERVE');
      expect(err.message).toContain('share of API_REQUESTS_PER_HOUR');
    }
  });

  it('a reserve that leaves a lane nothing stops the start, naming it', () => {
    const stock = configError(() =>
      loadConfig({ env: { API_REQUESTS_PER_HOUR: '40', API_STOCK_RESERVE: '300' } }),
    );
    expect(stock.key).toBe('API_STOCK_RESERVE');
    expect(stock.message).toMatch(/leaves stock pushes nothing: 300 of the 40 calls an hour/);
    const reading = configError(() => loadConfig({ env: { API_RECONCILE_RESERVE: '100%' } }));
    expect(reading.key).toBe('API_RECONCILE_RESERVE');
    const polls = configError(() =>
      loadConfig({ env: { API_STOCK_RESERVE: '50%', API_POLL_RESERVE: '50%' } }),
    );
    expect(polls.key).toBe('API_POLL_RESERVE');
    expect(polls.message).toContain('leaves shipment polls nothing');
    const creations = configError(() =>
      loadConfig({ env: { API_REQUESTS_PER_HOUR: '40', API_PRODUCTS_RESERVE: '75%' } }),
    );
    expect(creations.key).toBe('API_PRODUCTS_RESERVE');
    expect(creations.message).toContain(
      'leaves product creations nothing: 40 of the 40 calls an hour (API_REQUESTS_PER_HOUR) are kept from them (with API_STOCK_RESERVE and API_POLL_RESERVE)',
    );
  });

  it('a command run with such a reserve exits 78 naming it', async () => {
    const r = await runCliInProcess(['failures'], {
      SYNC_DATA_DIR: mkdtempSync(join(tmpdir(), 'supplier-sync-reserve-')),
      API_REQUESTS_PER_HOUR: '40',
      API_STOCK_RESERVE: '300',
    });
    expect(r.code).toBe(78);
    expect(r.stderr).toContain('API_STOCK_RESERVE: leaves stock pushes nothing');
  });
});
