import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { RedisClient } from '../../../src/jobs/connection.ts';
import { MarkerHub } from '../../../src/jobs/markerHub.ts';

/** What the hub uses of its connection: its status, its 'ready' event, BZPOPMIN and disconnect. */
class FakeConnection extends EventEmitter {
  status = 'connecting';
  readonly waits: string[][] = [];
  #answer: ((popped: [string, string, string] | null) => void) | undefined;
  bzpopmin(...args: Array<string | number>) {
    this.waits.push(args.slice(0, -1).map(String));
    return new Promise<[string, string, string] | null>((resolve) => {
      this.#answer = resolve;
    });
  }
  /** The pending BZPOPMIN answers with a marker of `key`. */
  pop(key: string, score: number) {
    this.#answer?.([key, '0', String(score)]);
  }
  disconnect() {
    this.status = 'end';
    this.#answer?.(null);
  }
}

let conn: FakeConnection;
let hub: MarkerHub;
beforeEach(() => {
  vi.useFakeTimers();
  conn = new FakeConnection();
  hub = new MarkerHub({
    client: conn as unknown as RedisClient,
    markers: { push: 'q:push:marker', ingest: 'q:ingest:marker' } as never,
    onError: () => {},
  });
});
afterEach(async () => {
  await hub.close();
  vi.useRealTimers();
});

it('starts waiting for markers as soon as its connection is ready, not a pause later', async () => {
  hub.start();
  await vi.advanceTimersByTimeAsync(10);
  expect(conn.waits).toEqual([]); // not ready: nothing sent to queue up
  conn.status = 'ready';
  conn.emit('ready');
  await vi.advanceTimersByTimeAsync(0);
  expect(conn.waits).toEqual([['q:push:marker', 'q:ingest:marker']]);

  // A worker's wait gets the marker of its queue.
  const waited = hub.wait('ingest' as never, 5);
  conn.pop('q:ingest:marker', 42);
  await expect(waited).resolves.toEqual({ member: '0', score: 42 });
  expect(listenersLeft()).toBe(0);
});

it('while its connection stays away, looks again every second', async () => {
  hub.start();
  await vi.advanceTimersByTimeAsync(2500);
  expect(conn.waits).toEqual([]);
  expect(listenersLeft()).toBe(1); // the current pause's, not one per pause
  conn.status = 'ready'; // came up without the event reaching the hub: the next look finds it
  await vi.advanceTimersByTimeAsync(500);
  expect(conn.waits).toHaveLength(1);
});

const listenersLeft = () => conn.listenerCount('ready');
