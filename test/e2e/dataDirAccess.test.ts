/**
 * A data folder the daemon cannot write (the inbox a container engine created for a bind mount,
 * owned by root) stops `run` at start: exit 78 and one line naming the folder, its owner and the
 * daemon's uid — never a daemon that looks healthy while every move fails with EACCES.
 *
 * As root (CI, containers) the child runs as `nobody`, for whom a root-owned 0755 folder is what
 * it is for uid 1000 in the image; as another user the folder is made read-only instead.
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, NODE } from '../helpers/daemonProcess.ts';

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/**
 * Whether `nobody` can run the checkout: every folder above it searchable by others (a clone
 * into `mktemp -d` is 0700: root's alone). Where it cannot, the child could not even start.
 */
function checkoutReachableByOthers(path: string): boolean {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}
const runnable = !asRoot || checkoutReachableByOthers(CLI);
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A data dir whose `locked` folder (inbox/, or the data dir itself) the child may not write. */
function dataDir(locked: 'inbox' | 'data dir'): string {
  const top = mkdtempSync(join(tmpdir(), 'supplier-sync-access-'));
  dirs.push(top);
  chmodSync(top, 0o755);
  const data = join(top, 'data');
  mkdirSync(data, { mode: 0o755 });
  const dir = locked === 'inbox' ? join(data, 'inbox') : data;
  if (locked === 'inbox') {
    mkdirSync(dir, { mode: 0o755 });
    if (asRoot) chownSync(data, NOBODY, NOBODY);
  }
  // Root-owned 0755 is what a container engine makes; for another user, read-only is the same.
  if (!asRoot) chmodSync(dir, 0o555);
  return data;
}

function run(data: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(NODE, [CLI, 'run'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: tmpdir(),
      SYNC_DATA_DIR: data,
      SUPPLIER_API_URL: 'http://127.0.0.1:1/api/v1',
      SUPPLIER_EMAIL: 'ops@example.com',
      SUPPLIER_PASSWORD: 'pw-never-used',
      REDIS_URL: 'redis://127.0.0.1:1',
      // The suite's compile cache (vitest.config.ts), read-only for another user: a quicker start.
      ...(process.env.NODE_COMPILE_CACHE
        ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE }
        : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const uid = asRoot ? NOBODY : process.getuid?.();

// As root in a checkout only root can reach, the child (as nobody) could not start: say so.
describe.skipIf(!runnable)('run with a data folder it cannot write', () => {
  it('exits 78 with one line naming the inbox, its owner and the daemon uid', async () => {
    const data = dataDir('inbox');
    const r = await run(data);
    expect(r.code).toBe(78);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^supplier-sync: configuration error: SYNC_DATA_DIR: cannot write ${join(data, 'inbox')} \\(owner uid \\d+ gid \\d+, mode 0[57]55; the daemon runs as uid ${uid} gid \\d+\\): `,
      ),
    );
    expect(lines[0]).not.toContain('pw-never-used');
  });

  it('names the data dir itself when the folders cannot be created in it', async () => {
    const data = dataDir('data dir');
    const r = await run(data);
    expect(r.code).toBe(78);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`SYNC_DATA_DIR: cannot write ${data} (owner uid`);
  });
});
