import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/**
 * Finds a Redis for the suite: REDIS_URL when it answers, else a private redis-server on a free
 * port (stopped after the run). Tests read the URL with inject('redisUrl').
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fromEnv = process.env.REDIS_URL;
  if (fromEnv && (await answers(fromEnv))) {
    project.provide('redisUrl', fromEnv);
    return async () => {};
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-redis-'));
  const server = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  await waitFor(server, url);
  project.provide('redisUrl', url);
  return async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  };
}

async function answers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function waitFor(server: ChildProcess, url: string): Promise<void> {
  let exited = false;
  server.once('error', () => {
    exited = true;
  });
  server.once('exit', () => {
    exited = true;
  });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (exited)
      throw new Error(
        'redis-server could not start: is it installed? (set REDIS_URL to use another)',
      );
    if (await answers(url)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not answer at ${url} within 10 s`);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}
