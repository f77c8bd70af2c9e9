/**
 * Density (product.md, "Many suppliers"): a daemon holds at most 4 Redis connections, idle and
 * after work, whatever its number of queues. Counted on the Redis server (CLIENT LIST, by the
 * daemon's connection names `PREFIX:…`) and checked against the process's own TCP sockets to
 * Redis (/proc), so that an unnamed connection cannot hide. A real process: what is counted is
 * what one `supplier-sync run` opens.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, seededSku } from '../helpers/daemonHarness.ts';
import { type ProcessHarness, startProcessHarness } from '../helpers/processHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: ProcessHarness;
afterEach(async () => {
  await h?.cleanup();
});

/** The names of the connections CLIENT LIST shows under this daemon's prefix. */
async function namedConnections(redisUrl: string, prefix: string): Promise<string[]> {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const list = String(await client.client('LIST'));
    return list
      .split('\n')
      .map((line) => /(?:^| )name=(\S*)/.exec(line)?.[1] ?? '')
      .filter((name) => name.startsWith(`${prefix}:`));
  } finally {
    client.disconnect();
  }
}

/** How many TCP sockets process `pid` holds to `port` (IPv4 and IPv6), from /proc. */
function socketsTo(pid: number, port: number): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let count = 0;
  for (const table of ['tcp', 'tcp6']) {
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols[2]: the remote address, cols[3]: the state (01 established), cols[9]: the inode.
      if (cols[2]?.endsWith(hexPort) && cols[3] === '01' && inodes.has(cols[9]!)) count++;
    }
  }
  return count;
}

describe('Redis connections of one daemon', { timeout: 120_000 }, () => {
  it('an idle daemon holds at most 4 Redis connections, all named, and no more after work', async () => {
    h = await startProcessHarness('connections');
    const d = await h.start();
    const pid = d.child.pid!;
    const port = Number(new URL(h.box.redisUrl).port || 6379);
    // Idle: started, the first poll done, every lane's worker waiting for work.
    await d.waitForEvent('shipments.polled', 20_000);
    await new Promise((r) => setTimeout(r, 2000));
    const idle = await namedConnections(h.box.redisUrl, h.box.prefix);
    expect(idle.length).toBeGreaterThan(0);
    expect(idle.length).toBeLessThanOrEqual(4);
    expect(socketsTo(pid, port)).toBe(idle.length);

    // After work in every stock lane (ingest, push) the count is the same.
    const rows = Array.from({ length: 20 }, (_, i) => [seededSku(i), 70 + i] as const);
    h.drop('stock.csv', factoryCsv(rows));
    await waitUntil(
      () => rows.every(([s, q]) => h.sim.store.factoryStock(s)?.stock_quantity === q),
      { timeoutMs: 30_000, message: 'the file reached the portal' },
    );
    const after = await namedConnections(h.box.redisUrl, h.box.prefix);
    expect(after.length).toBe(idle.length);
    expect(socketsTo(pid, port)).toBe(after.length);
  });
});
