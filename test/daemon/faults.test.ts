import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

/** Files of factory stock, each setting 60 SKUs; later files overwrite some earlier SKUs. */
function stockFiles(count: number, base: number) {
  return Array.from({ length: count }, (_, f) => ({
    name: `stock-${String(f).padStart(2, '0')}.csv`,
    rows: Array.from(
      { length: 60 },
      (_, i) => [seededSku(f * 40 + i), base + f * 1000 + i] as const,
    ),
  }));
}

/** Drops the files with modification times a second apart, in order: the last is the newest. */
function dropInOrder(h: Harness, files: ReturnType<typeof stockFiles>) {
  const start = Date.now() - files.length * 1000;
  for (const [i, f] of files.entries())
    h.drop(f.name, factoryCsv(f.rows), new Date(start + i * 1000));
}

/** What the portal should hold after all files: the newest file wins. */
function expected(files: ReturnType<typeof stockFiles>) {
  const want = new Map<string, number>();
  for (const f of files) for (const [s, q] of f.rows) want.set(s, q);
  return want;
}

const converged = (h: Harness, want: Map<string, number>) =>
  [...want].every(([s, q]) => h.sim.store.factoryStock(s)?.stock_quantity === q);

function expectEachFileDoneOnce(h: Harness, names: readonly string[]) {
  const dir = h.box.dataDir;
  const inbox = readdirSync(join(dir, 'inbox')).filter((n) => !n.startsWith('.'));
  const done = [...readdirSync(join(dir, 'processed')), ...readdirSync(join(dir, 'failed'))].filter(
    (n) => !n.endsWith('.report.json'),
  );
  expect(inbox).toEqual([]);
  for (const name of names)
    expect(
      done.filter((d) => d.endsWith(`-${name}`)),
      name,
    ).toHaveLength(1);
}

describe('the daemon converges through faults', { timeout: 120_000 }, () => {
  it('survives SIGKILL at several moments of a multi-file sync: converges, each file done once', async () => {
    h = await startHarness('crash', { maxBulkItems: 20 }, { BULK_BATCH_SIZE: '20' });
    const files = stockFiles(8, 100);
    h.sim.faults.set({ slowMs: 15 });
    await h.start();
    dropInOrder(h, files);
    for (let kill = 0; kill < 5; kill++) {
      const d = h.daemon!;
      // Kill at moments spread over the work: right after start, mid-file, mid-push.
      if (kill % 2 === 1) {
        await d
          .waitFor(
            (l) => l.event === 'stock.pushed' || l.event === 'file.processed',
            3000,
            'work in progress',
          )
          .catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 400)));
      d.kill('SIGKILL');
      await d.exited;
      if (kill < 4) await h.start();
    }
    h.sim.faults.clear();
    await h.start();
    const want = expected(files);
    await waitUntil(() => converged(h, want), {
      timeoutMs: 60_000,
      message: 'convergence after the kills',
      onTimeout: () => writeFileSync('/tmp/crash-out.log', h.daemon!.output()),
    });
    await waitUntil(
      () =>
        readdirSync(join(h.box.dataDir, 'inbox')).filter((n) => !n.startsWith('.')).length === 0,
      { timeoutMs: 10_000 },
    );
    expectEachFileDoneOnce(
      h,
      files.map((f) => f.name),
    );
    expect(await h.stop()).toBe(0);
  });

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

  it('stops gracefully on SIGTERM in the middle of a push, within 10 s, and converges after a restart', async () => {
    h = await startHarness('sigterm', { maxBulkItems: 10 }, { BULK_BATCH_SIZE: '10' });
    h.sim.faults.set({ slowMs: 150 });
    await h.start();
    const rows = Array.from({ length: 200 }, (_, i) => [seededSku(i), 60 + i] as const);
    h.drop('big.csv', factoryCsv(rows));
    await h.daemon!.waitForEvent('stock.pushed', 20_000);
    const t0 = Date.now();
    expect(await h.stop()).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    h.sim.faults.clear();
    await h.start();
    await waitUntil(
      () => rows.every(([s, q]) => h.sim.store.factoryStock(s)?.stock_quantity === q),
      { timeoutMs: 30_000 },
    );
  });
});
