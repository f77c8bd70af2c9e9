import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

const run = promisify(execFile);

/** A local Redis Cluster of real redis-server processes, for tests. */
export interface RedisCluster {
  /** Every node, `redis://127.0.0.1:PORT,…` (REDIS_URL with REDIS_CLUSTER=true). */
  readonly url: string;
  readonly ports: readonly number[];
  /** The port of a master that serves `key`'s slot right now. */
  masterOf(key: string): Promise<number>;
  /** Kills the node on `port` (SIGKILL, as a crash). */
  kill(port: number): Promise<void>;
  /** Starts the node on `port` again with its own nodes.conf: it rejoins the cluster. */
  restart(port: number): Promise<void>;
  /** Resolves once every node says cluster_state:ok and every slot is served. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** A port free on 127.0.0.1 whose cluster bus port (+10000) is free too. */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  const tryListen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => {
        const address = srv.address();
        srv.close(() =>
          typeof address === 'object' && address ? resolve(address.port) : reject(),
        );
      });
    });
  for (;;) {
    const port = await tryListen(0);
    if (port > 55_000 || taken.has(port) || taken.has(port + 10_000)) continue;
    if (
      await tryListen(port + 10_000).then(
        () => true,
        () => false,
      )
    ) {
      taken.add(port);
      return port;
    }
  }
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-p', String(port), ...args], { timeout: 10_000 });
  return stdout;
}

/**
 * Starts `nodes` redis-server processes with cluster mode on (a short node timeout, so that a
 * replica takes over a killed master within seconds) and joins them with `redis-cli --cluster
 * create … --cluster-replicas 1`: half masters, half replicas. Nothing is kept on disk but each
 * node's nodes.conf, in a temp dir removed by stop().
 */
export async function startRedisCluster(nodes = 6): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-cluster-'));
  const taken = new Set<number>();
  const ports: number[] = [];
  for (let i = 0; i < nodes; i++) ports.push(await freeClusterPort(taken));
  const children = new Map<number, ChildProcess>();

  const startNode = async (port: number) => {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--cluster-node-timeout',
        '1500',
        // A replica takes over however long ago it last heard its master (the default refuses a
        // replica whose link is older than ten node timeouts; the test's nodes idle a lot).
        '--cluster-replica-validity-factor',
        '0',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    );
    children.set(port, child);
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`redis-server on ${port} exited (${child.exitCode})`);
      const up = await cli(port, 'ping').then(
        (o) => o.trim() === 'PONG',
        () => false,
      );
      if (up) return;
      if (Date.now() > deadline) throw new Error(`redis-server on ${port} does not answer`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async (port: number) => {
    const child = children.get(port);
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  };
  const stop = async () => {
    await Promise.all(ports.map(kill));
    rmSync(dir, { recursive: true, force: true });
  };

  const waitHealthy = async (timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(ports.map((p) => cli(p, 'cluster', 'info').catch(() => '')));
      if (states.every((s) => /cluster_state:ok/.test(s) && /cluster_slots_ok:16384/.test(s)))
        return;
      if (Date.now() > deadline)
        throw new Error(`the cluster is not healthy:\n${states.join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  try {
    await Promise.all(ports.map(startNode));
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
    await waitHealthy();
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    url: ports.map((p) => `redis://127.0.0.1:${p}`).join(','),
    ports,
    async masterOf(key) {
      for (const port of ports) {
        const child = children.get(port);
        if (!child || child.exitCode !== null || child.signalCode !== null) continue;
        const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
        try {
          const slot = (await client.call('cluster', 'keyslot', key)) as number;
          const ranges = (await client.call('cluster', 'slots')) as Array<
            [number, number, [string, number]]
          >;
          const range = ranges.find(([from, to]) => slot >= from && slot <= to);
          if (range) return range[2][1];
        } finally {
          client.disconnect();
        }
      }
      throw new Error(`no node serves the slot of ${key}`);
    },
    kill,
    restart: startNode,
    waitHealthy,
    stop,
  };
}
