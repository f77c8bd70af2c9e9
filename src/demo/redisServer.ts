import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pingRedisUrl } from '../daemon/healthCheck.ts';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** The server's process id (tests freeze it with SIGSTOP to play a Redis that hangs). */
  readonly pid: number;
  /** Stops the server (SIGKILL with `{ kill: true }`, as a crash) and removes its folder. */
  stop(options?: { kill?: boolean }): Promise<void>;
}

/**
 * Starts a private `redis-server` from the PATH on 127.0.0.1 (a free port unless given) that
 * keeps nothing on disk; resolves once it answers. For the demo, the tests and the benchmarks.
 * With `password`, clients must authenticate (`requirepass`): the URL then carries it,
 * percent-encoded (it is also on the server's command line: for tests, not for secrets that
 * matter).
 */
export async function startRedisServer(
  options: { port?: number; timeoutMs?: number; password?: string } = {},
): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-redis-'));
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
      ...(options.password === undefined ? [] : ['--requirepass', options.password]),
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<Error>((resolve) => {
    child.once('error', (err) => resolve(err));
    child.once('exit', (code, signal) =>
      resolve(new Error(`redis-server exited (${code ?? signal})`)),
    );
  });
  const auth = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  const url = `redis://${auth}127.0.0.1:${port}`;
  const stop = async ({ kill = false } = {}) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(kill ? 'SIGKILL' : 'SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const outcome = await Promise.race([
      pingRedisUrl(url, 500).then(
        () => 'up' as const,
        () => 'down' as const,
      ),
      exited,
    ]);
    if (outcome === 'up') return { url, port, pid: child.pid!, stop };
    if (outcome instanceof Error || Date.now() > deadline) {
      await stop({ kill: true });
      throw new Error(
        `could not start redis-server on port ${port}: ${outcome instanceof Error ? outcome.message : 'no answer'} (is redis-server installed? Debian: apt-get install redis-server)`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
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
