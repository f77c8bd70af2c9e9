import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { healthCommand } from '../../src/cli/commands/healthCommand.ts';
import { startHeartbeat } from '../../src/daemon/heartbeat.ts';
import { openStateDb } from '../../src/state/db.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { takeWriterLock } from '../../src/state/lock/writerLock.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';
import { textSink } from './helpers.ts';

let sandbox: Sandbox;

beforeEach(() => {
  sandbox = makeSandbox('health');
});
afterEach(async () => {
  await sandbox.cleanup();
});

async function health(argv: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const stdout = textSink();
  const stderr = textSink();
  const code = await healthCommand.run({
    argv,
    env: { SYNC_DATA_DIR: sandbox.dataDir, REDIS_URL: sandbox.redisUrl, ...env },
    stdout: stdout.stream,
    stderr: stderr.stream,
    signal: new AbortController().signal,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const stateDb = () => openStateDb(join(sandbox.dataDir, 'state.db'));

describe('health command', () => {
  it('exits 1 naming state.db when the daemon never ran on this data dir', async () => {
    const r = await health();
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^unhealthy: state\.db: no state\.db in /);

    const both = await health([], { REDIS_URL: 'redis://127.0.0.1:1' });
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/^unhealthy: redis: .*ECONNREFUSED.*; state\.db: no state\.db in /);
  });

  it('exits 1 when there is no heartbeat yet, 0 with a fresh one and Redis answering', async () => {
    const db = stateDb();
    try {
      let r = await health();
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'unhealthy: daemon: no heartbeat yet\n' });

      const heartbeat = startHeartbeat(db);
      heartbeat.stop();
      r = await health();
      expect(r).toEqual({ code: 0, stdout: 'healthy\n', stderr: '' });

      r = await health(['--json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        healthy: true,
        problems: [],
        redis: 'ok',
        stateDb: 'ok',
      });
    } finally {
      db.close();
    }
  });

  it('exits 1 for an old heartbeat, and for a Redis that does not answer', async () => {
    const db = stateDb();
    try {
      const kv = new KeyValueStore(db);
      kv.set('daemon.heartbeat', { at: Date.now() - 5 * 60_000, pid: 1, startedAt: 0 });
      let r = await health();
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^unhealthy: daemon: last heartbeat 30\d s ago\n$/);

      kv.set('daemon.heartbeat', { at: Date.now(), pid: 1, startedAt: 0 });
      r = await health(['--json'], { REDIS_URL: 'redis://127.0.0.1:1' });
      expect(r.code).toBe(1);
      const report = JSON.parse(r.stdout);
      expect(report.healthy).toBe(false);
      expect(report.redis).toBe('error');
      expect(report.problems).toEqual([expect.stringMatching(/^redis: .*ECONNREFUSED/)]);
    } finally {
      db.close();
    }
  });

  it('--live: 0 while a process holds the writer lock and beats, whatever Redis does; 1 once it lets go', async () => {
    const db = stateDb();
    try {
      const kv = new KeyValueStore(db);
      kv.set('daemon.heartbeat', { at: Date.now() - 2000, pid: 1, startedAt: 0 });
      // A fresh heartbeat, but no process holds the lock: the daemon stopped (or was killed).
      let r = await health(['--live']);
      expect(r).toEqual({
        code: 1,
        stdout: '',
        stderr:
          "not live: no process holds the data dir's writer lock: the daemon is not running\n",
      });

      const taken = takeWriterLock(sandbox.dataDir, db, 'daemon');
      try {
        r = await health(['--live'], { REDIS_URL: 'redis://127.0.0.1:1' });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(/^live: the daemon's heartbeat is [23] s old\n$/);
        r = await health(['--live', '--json']);
        expect(JSON.parse(r.stdout)).toMatchObject({
          live: true,
          heartbeatAgeMs: expect.any(Number),
          disk: { path: sandbox.dataDir, full: false },
        });
        // Holding the lock but silent for over a minute: stuck, a restart is what helps.
        kv.set('daemon.heartbeat', { at: Date.now() - 5 * 60_000, pid: 1, startedAt: 0 });
        r = await health(['--live']);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/^not live: no heartbeat for 30\d s\n$/);
      } finally {
        taken.lock?.release();
      }
      // Held by a command working alone, not a daemon.
      kv.set('daemon.heartbeat', { at: Date.now(), pid: 1, startedAt: 0 });
      const command = takeWriterLock(sandbox.dataDir, db, 'release');
      try {
        r = await health(['--live']);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/^not live: the data dir's writer lock is held by `release` /);
      } finally {
        command.lock?.release();
      }
    } finally {
      db.close();
    }
  });
});
