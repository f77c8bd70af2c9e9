import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REDIS_REPEAT_MS, watchRedis } from '../../../src/jobs/redisWatch.ts';
import { captureLog } from '../../ops/helpers.ts';

/** What the watch reads of an ioredis connection: its events and its status. */
class FakeConnection extends EventEmitter {
  status = 'connecting';
  ready() {
    this.status = 'ready';
    this.emit('ready');
  }
  lose(err?: Error) {
    this.status = 'reconnecting';
    this.emit('close');
    if (err) this.emit('error', err);
  }
  refuse() {
    this.emit(
      'error',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }),
    );
  }
}

let t = 0;
beforeEach(() => {
  t = Date.UTC(2026, 0, 1);
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function setup() {
  const captured = captureLog();
  const watch = watchRedis({ log: captured.log, now: () => t });
  const conn = new FakeConnection();
  watch.connection(conn as unknown as Redis, 'daemon');
  const redisLines = () => captured.lines().filter((l) => String(l.event).startsWith('redis.'));
  return { watch, conn, redisLines };
}

describe('watchRedis', () => {
  it('logs one redis.down per outage, repeats at most once a minute, and one redis.up', () => {
    const { watch, conn, redisLines } = setup();
    const queueError = watch.onError('queue:push');
    conn.ready();
    expect(redisLines()).toEqual([]); // coming up at start is not news
    expect(watch.state().up).toBe(true);

    conn.lose();
    expect(watch.state()).toMatchObject({ up: false, since: t });
    // Ten errors a second from every part, for 150 s.
    for (let s = 0; s < 150; s++) {
      t += 1000;
      for (let i = 0; i < 10; i++)
        i % 2 ? conn.refuse() : queueError(new Error('Connection is closed.'));
    }
    const down = redisLines().filter((l) => l.event === 'redis.down');
    expect(down.map((l) => l.repeat ?? false)).toEqual([false, true, true]);
    expect(down[1]!.downForMs).toBe(REDIS_REPEAT_MS);
    // Each repeat counts the errors since the line before: 59 s of ten, and the one that logs.
    expect(down.slice(1).map((l) => l.errors)).toEqual([591, 600]);
    expect(watch.state().lastError).toMatch(/ECONNREFUSED|Connection is closed/);

    t += 500;
    conn.ready();
    const up = redisLines().filter((l) => l.event === 'redis.up');
    expect(up).toHaveLength(1);
    expect(up[0]!.downForMs).toBe(150_500);
    expect(watch.state()).toMatchObject({ up: true, lastError: null });
    expect(redisLines()).toHaveLength(4);
  });

  it('says down at start when Redis never answered, and up once it does', () => {
    const { watch, conn, redisLines } = setup();
    expect(watch.state().up).toBe(false);
    conn.refuse();
    conn.refuse();
    expect(redisLines().map((l) => l.event)).toEqual(['redis.down']);
    conn.ready();
    expect(redisLines().map((l) => l.event)).toEqual(['redis.down', 'redis.up']);
  });

  it('counts errors that came just before the connection noticed an outage into the outage', () => {
    const { watch, conn, redisLines } = setup();
    conn.ready();
    watch.onError('worker:push')(new Error('Connection is closed.'));
    conn.lose();
    vi.advanceTimersByTime(2000);
    expect(redisLines().map((l) => l.event)).toEqual(['redis.down']);
  });

  it('logs errors while Redis answers as redis.error, at most once a minute with their count', () => {
    const { watch, conn, redisLines } = setup();
    conn.ready();
    const workerError = watch.onError('worker:ingest');
    workerError(new Error('Missing lock for job 7'));
    vi.advanceTimersByTime(1000);
    for (let i = 0; i < 5; i++) {
      t += 10_000;
      workerError(new Error('Missing lock for job 8'));
      vi.advanceTimersByTime(1000);
    }
    t += REDIS_REPEAT_MS;
    workerError(new Error('Missing lock for job 9'));
    vi.advanceTimersByTime(1000);
    const errors = redisLines().filter((l) => l.event === 'redis.error');
    expect(errors.map((l) => l.errors)).toEqual([1, 6]);
    expect(watch.state().up).toBe(true);
  });

  it('stays quiet after stop, and keeps an error listener on the connection', () => {
    const { watch, conn, redisLines } = setup();
    conn.ready();
    watch.stop();
    conn.lose(new Error('gone'));
    expect(redisLines()).toEqual([]);
    expect(conn.listenerCount('error')).toBeGreaterThan(0);
  });
});
