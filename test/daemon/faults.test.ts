import { afterEach, describe, expect, it } from 'vitest';
import { freePort, type RedisServer, startRedisServer } from '../../src/demo/redisServer.ts';
import { ACTIVE_DC_CODES } from '../../src/simulator/seed.ts';
import {
  dcCsv,
  factoryCsv,
  type Harness,
  seededSku,
  startHarness,
} from '../helpers/daemonHarness.ts';
import { deleteKeys, waitUntil } from '../helpers/sandbox.ts';
import {
  converged,
  dropInOrder,
  expectEachFileDoneOnce,
  expected,
  stockFiles,
  waitForEmptyInbox,
} from '../helpers/stockFiles.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

describe('the daemon converges through faults', { timeout: 120_000 }, () => {
  it('converges when Redis loses every key mid-run', async () => {
    h = await startHarness('flush', { maxBulkItems: 15 }, { BULK_BATCH_SIZE: '15' });
    h.sim.faults.set({ slowMs: 20 });
    await h.start();
    const files = stockFiles(4, 300);
    dropInOrder(h, files);
    await h.daemon!.waitForEvent('stock.pushed', 20_000);
    await deleteKeys(h.box.redisUrl, `${h.box.prefix}:*`);
    h.sim.faults.clear();
    const want = expected(files);
    await waitUntil(() => converged(h, want), {
      timeoutMs: 40_000,
      message: 'convergence after losing the queues',
    });
    await waitForEmptyInbox(h);
    expectEachFileDoneOnce(
      h,
      files.map((f) => f.name),
    );
  });

  it('converges through a Redis restart (a private redis-server, killed and started empty)', async () => {
    let redis = await startRedisServer();
    try {
      h = await startHarness(
        'redis-restart',
        { maxBulkItems: 15 },
        { BULK_BATCH_SIZE: '15', REDIS_URL: redis.url },
      );
      await h.start();
      h.sim.faults.set({ slowMs: 20 });
      const files = stockFiles(3, 500);
      dropInOrder(h, files);
      await h.daemon!.waitForEvent('stock.pushed', 20_000);
      await redis.stop({ kill: true });
      redis = await startRedisServer({ port: redis.port });
      h.sim.faults.clear();
      const want = expected(files);
      await waitUntil(() => converged(h, want), {
        timeoutMs: 40_000,
        message: 'convergence after the Redis restart',
      });
      await waitForEmptyInbox(h);
      expectEachFileDoneOnce(
        h,
        files.map((f) => f.name),
      );
      expect(await h.stop()).toBe(0);
    } finally {
      await redis.stop({ kill: true });
    }
  });

  it('starts while Redis is down, and catches up when Redis comes', async () => {
    const port = await freePort();
    let redis: RedisServer | undefined;
    try {
      h = await startHarness('redis-late', {}, { REDIS_URL: `redis://127.0.0.1:${port}` });
      await h.start();
      h.drop('early.csv', factoryCsv([[seededSku(3), 4242]]));
      const health = await h.cli(['health']);
      expect(health.code).toBe(1);
      expect(health.output).toMatch(/redis/);
      redis = await startRedisServer({ port });
      await waitUntil(() => h.sim.store.factoryStock(seededSku(3))?.stock_quantity === 4242, {
        timeoutMs: 30_000,
        message: 'the file pushed once Redis came',
      });
      expect(await h.stop()).toBe(0);
    } finally {
      await redis?.stop({ kill: true });
    }
  });

  it('converges through 500s with HTML bodies, resets, slow answers and 429 bursts', async () => {
    h = await startHarness(
      'portal-faults',
      { maxBulkItems: 25, seed: 7 },
      { BULK_BATCH_SIZE: '25' },
    );
    await h.start();
    h.sim.faults.set({ error500Rate: 0.25, resetRate: 0.1, slowMs: 10, next429: 3 });
    const factory = Array.from({ length: 120 }, (_, i) => [seededSku(i), 40 + i] as const);
    const dc = Array.from(
      { length: 60 },
      (_, i) => [ACTIVE_DC_CODES[i % 3]!, seededSku(i), 7 + i] as const,
    );
    h.drop('f.csv', factoryCsv(factory));
    h.drop('d.csv', dcCsv(dc));
    await waitUntil(
      () =>
        factory.every(([s, q]) => h.sim.store.factoryStock(s)?.stock_quantity === q) &&
        dc.every(([d, s, q]) => h.sim.store.dcStock(d, s)?.stock_quantity === q),
      { timeoutMs: 60_000, intervalMs: 100, message: 'convergence through portal faults' },
    );
    expect(h.sim.stats().logins).toBeLessThanOrEqual(10);
    expect(await h.stop()).toBe(0);
  });
});
