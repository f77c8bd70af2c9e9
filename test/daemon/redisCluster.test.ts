/**
 * The daemon on a Redis Cluster (REDIS_CLUSTER=true; six real redis-server nodes, three masters
 * and three replicas, started by the test): a file syncs; every key of the daemon hashes to one
 * slot (its prefix is hash-tagged); the master holding it is killed — a replica takes over — and
 * a file dropped meanwhile still reaches the portal; the node comes back and rejoins, and the
 * next file syncs too. `status` and `health` read the cluster as the daemon does.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { loadConfig } from '../../src/config/index.ts';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.ts';
import { type Simulator, startSimulator } from '../../src/simulator/index.ts';
import { factoryCsv, seededSku } from '../helpers/daemonHarness.ts';
import { type RedisCluster, startRedisCluster } from '../helpers/redisCluster.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { captureLog, textSink } from '../ops/helpers.ts';

let cluster: RedisCluster | undefined;
let sim: Simulator | undefined;
let daemon: Daemon | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await daemon?.stop('test over');
  await sim?.close();
  await cluster?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  [daemon, sim, cluster, dataDir] = [undefined, undefined, undefined, undefined];
});

/** Keys of every live master matching `pattern`, by port. */
async function keysByMaster(c: RedisCluster, pattern: string): Promise<Map<number, number>> {
  const { execFile } = await import('node:child_process');
  const out = new Map<number, number>();
  for (const port of c.ports) {
    const text = await new Promise<string>((resolve) =>
      execFile('redis-cli', ['-p', String(port), 'role'], (err, stdout) =>
        resolve(err ? '' : stdout),
      ),
    );
    if (!text.startsWith('master')) continue;
    const keys = await new Promise<string>((resolve) =>
      execFile('redis-cli', ['-p', String(port), '--scan', '--pattern', pattern], (err, stdout) =>
        resolve(err ? '' : stdout),
      ),
    );
    const n = keys.split('\n').filter((k) => k !== '').length;
    if (n > 0) out.set(port, n);
  }
  return out;
}

describe('a Redis Cluster', { timeout: 120_000 }, () => {
  it('syncs, keeps a daemon in one slot, rides out a master restart and converges', async () => {
    cluster = await startRedisCluster();
    sim = await startSimulator({ products: 100, shipments: 0 });
    dataDir = mkdtempSync(join(tmpdir(), 'supplier-sync-cluster-data-'));
    const prefix = `t-cluster-${randomBytes(3).toString('hex')}`;
    const env = {
      SUPPLIER_API_URL: sim.baseUrl,
      SUPPLIER_EMAIL: 'supplier@example.com',
      SUPPLIER_PASSWORD: 'demo-password',
      // Two of the six nodes as seeds: the client learns the rest from them.
      REDIS_URL: cluster.url.split(',').slice(0, 2).join(','),
      REDIS_CLUSTER: 'true',
      SYNC_QUEUE_PREFIX: prefix,
      SYNC_DATA_DIR: dataDir,
      INBOX_STABILITY_MS: '100',
      INBOX_SCAN_INTERVAL_MS: '1000',
      API_BACKOFF_BASE_MS: '20',
      API_BACKOFF_MAX_MS: '200',
      JOB_LOCK_MS: '4000',
    };
    const config = loadConfig({ env });
    const captured = captureLog();
    daemon = await startDaemon({ config, log: captured.log });
    const drop = (name: string, sku: string, quantity: number) => {
      const temp = join(dataDir!, 'inbox', `.${name}.tmp`);
      writeFileSync(temp, factoryCsv([[sku, quantity]]));
      renameSync(temp, join(dataDir!, 'inbox', name));
    };
    const reaches = (sku: string, quantity: number, message: string) =>
      waitUntil(() => sim!.store.factoryStock(sku)?.stock_quantity === quantity, {
        timeoutMs: 40_000,
        message,
        onTimeout: () => console.error(captured.lines().slice(-30)),
      });

    drop('one.csv', seededSku(0), 701);
    await reaches(seededSku(0), 701, 'a file synced over the cluster');

    // Every key of the daemon lies on the master of its hash tag, and nowhere else.
    const master = await cluster.masterOf(`{${prefix}}`);
    const where = await keysByMaster(cluster, `*${prefix}*`);
    expect([...where.keys()]).toEqual([master]);
    expect(where.get(master)).toBeGreaterThan(3);

    // The commands read the cluster too.
    const io = () => ({ env, stdout: textSink(), stderr: textSink() });
    const status = io();
    expect(
      await main(['status', '--json'], {
        env: status.env,
        stdout: status.stdout.stream,
        stderr: status.stderr.stream,
        signal: new AbortController().signal,
      }),
    ).toBe(0);
    const read = JSON.parse(status.stdout.text()) as { queues: Record<string, unknown> };
    expect(read.queues).not.toHaveProperty('error');
    expect(read.queues).toHaveProperty('push');

    // The master holding the daemon's keys dies; its replica takes over.
    await cluster.kill(master);
    drop('two.csv', seededSku(1), 702);
    await reaches(seededSku(1), 702, 'a file dropped while a master was down');

    await cluster.restart(master);
    await cluster.waitHealthy();
    drop('three.csv', seededSku(2), 703);
    await reaches(seededSku(2), 703, 'a file after the node rejoined');

    const health = io();
    expect(
      await main(['health'], {
        env: health.env,
        stdout: health.stdout.stream,
        stderr: health.stderr.stream,
        signal: new AbortController().signal,
      }),
    ).toBe(0);
  });
});
