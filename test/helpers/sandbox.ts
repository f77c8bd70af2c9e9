import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

export interface Sandbox {
  /** A fresh temporary directory to use as SYNC_DATA_DIR. */
  readonly dataDir: string;
  /** A BullMQ prefix no other test uses. */
  readonly prefix: string;
  /** The suite's Redis; reading it in a project without Redis (unit) is an error naming why. */
  readonly redisUrl: string;
  /** Removes the directory (unless `keepDir`: a failed test's evidence) and the Redis keys. */
  cleanup(options?: { keepDir?: boolean }): Promise<void>;
}

/** Gives one test its own data dir and BullMQ prefix on the suite's Redis. */
export function makeSandbox(label = 'test'): Sandbox {
  const id = randomBytes(4).toString('hex');
  const dataDir = mkdtempSync(join(tmpdir(), `supplier-sync-${label}-`));
  const prefix = `t-${label}-${id}`;
  const redisUrl: string | undefined = inject('redisUrl');
  return {
    dataDir,
    prefix,
    get redisUrl() {
      if (redisUrl === undefined)
        throw new Error(
          'this test needs Redis, which its vitest project does not start: move it out of the unit project (vitest.config.ts)',
        );
      return redisUrl;
    },
    async cleanup({ keepDir = false } = {}) {
      if (!keepDir) rmSync(dataDir, { recursive: true, force: true });
      if (redisUrl !== undefined) await deleteKeys(redisUrl, `${prefix}:*`);
    },
  };
}

export async function deleteKeys(redisUrl: string, pattern: string): Promise<void> {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/** Polls a condition until it holds or the deadline passes; tests wait on facts, not on sleeps. */
export async function waitUntil<T>(
  check: () => T | Promise<T>,
  {
    timeoutMs = 10_000,
    intervalMs = 25,
    message = 'condition',
    onTimeout = undefined as (() => void) | undefined,
  } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      onTimeout?.();
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${message}${last ? `: ${String(last)}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * A fresh temporary folder in memory (/dev/shm where the machine has it, else the usual temporary
 * folder), for tests that create many short-lived SQLite files to check logic, where what reaches
 * the disk (fsync) is not what is tested: the durability tests use real disk folders.
 */
export function memoryTempDir(prefix: string): string {
  const base = existsSync('/dev/shm') && statSync('/dev/shm').isDirectory() ? '/dev/shm' : tmpdir();
  return mkdtempSync(join(base, prefix));
}
