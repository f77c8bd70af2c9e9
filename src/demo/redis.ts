import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pingRedisUrl } from '../daemon/healthCheck.ts';

export interface DemoRedis {
  readonly url: string;
  /** Where it came from, for the demo's narration. */
  readonly origin: string;
  stop(): Promise<void>;
}

/**
 * Redis for the demo: REDIS_URL when it answers; else a private `redis-server` on a free port
 * (nothing kept on disk), stopped with the demo; else an error that says what to do.
 */
export async function demoRedis(env: NodeJS.ProcessEnv): Promise<DemoRedis> {
  const fromEnv = env.REDIS_URL;
  if (fromEnv) {
    try {
      await pingRedisUrl(fromEnv, 2000);
      return { url: fromEnv, origin: 'REDIS_URL', stop: async () => {} };
    } catch (err) {
      throw new Error(
        `REDIS_URL=${fromEnv} does not answer (${(err as Error).message}); unset it to let the demo start its own redis-server`,
      );
    }
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-demo-redis-'));
  const child: ChildProcess = spawn(
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
  const failed = new Promise<Error>((resolve) => {
    child.once('error', (err) => resolve(err));
    child.once('exit', (code) => resolve(new Error(`redis-server exited with code ${code}`)));
  });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const outcome = await Promise.race([
      pingRedisUrl(url, 500).then(
        () => 'up' as const,
        () => 'down' as const,
      ),
      failed,
    ]);
    if (outcome === 'up') break;
    if (outcome instanceof Error) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        `the demo needs Redis: set REDIS_URL, or install redis-server (Debian: apt-get install redis-server) — ${outcome.message}`,
      );
    }
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on ${url}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    origin: `a private redis-server on port ${port}`,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no free port')),
      );
    });
  });
}
