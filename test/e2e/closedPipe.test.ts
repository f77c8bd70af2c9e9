/**
 * Output into a pipe the reader closed early (`supplier-sync status | head -3`): the command ends
 * quietly, exit 0, nothing on stderr. A real child process with a real pipe whose read end is
 * closed before the child writes (so every write meets EPIPE, whatever the timing).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataPaths } from '../../src/config/dataPaths.ts';
import { openStateDb } from '../../src/state/db.ts';
import { CLI, NODE } from '../helpers/daemonProcess.ts';

/** Runs the CLI with stdout a pipe already closed at our end; its exit code and stderr. */
function intoClosedPipe(args: readonly string[], env: Record<string, string>) {
  const child = spawn(NODE, [CLI, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      ...(process.env.NODE_COMPILE_CACHE
        ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE }
        : {}),
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.destroy(); // the reader is gone (as `head` after its lines)
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString('utf8');
  });
  return new Promise<{ code: number | string; stderr: string }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code: code ?? signal ?? 'unknown', stderr }));
  });
}

describe('output into a closed pipe', () => {
  it('status | head: ends quietly with exit 0 (also --help)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-pipe-'));
    openStateDb(dataPaths(dir).stateDb).close();
    const [status, help] = await Promise.all([
      intoClosedPipe(['status'], { SYNC_DATA_DIR: dir }),
      intoClosedPipe(['--help'], { SYNC_DATA_DIR: dir }),
    ]);
    expect(status).toEqual({ code: 0, stderr: '' });
    expect(help).toEqual({ code: 0, stderr: '' });
  });
});
