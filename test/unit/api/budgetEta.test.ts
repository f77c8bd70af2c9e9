import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../../src/api/budget/decide.ts';
import { whenCallsDone } from '../../../src/api/budget/eta.ts';

const now = 10 * HOUR_MS;

describe('whenCallsDone', () => {
  it('is null when nothing is needed, and now while the lane has room', () => {
    expect(whenCallsDone({ calls: [], limit: 10, reserve: 0, now, needed: 0 })).toBeNull();
    expect(whenCallsDone({ calls: [now - 5], limit: 10, reserve: 2, now, needed: 7 })).toBe(now);
  });

  it('waits for old calls to leave the window, oldest first', () => {
    // allowance 3, three calls in the window: the first new call waits for the oldest to leave.
    const calls = [now - 3000, now - 1000, now - 2000];
    expect(whenCallsDone({ calls, limit: 5, reserve: 2, now, needed: 1 })).toBe(
      now - 3000 + HOUR_MS,
    );
    expect(whenCallsDone({ calls, limit: 5, reserve: 2, now, needed: 3 })).toBe(
      now - 1000 + HOUR_MS,
    );
  });

  it('counts its own calls: beyond a window of new calls it waits for them to leave', () => {
    // allowance 2, empty window: calls 1-2 now, 3-4 an hour later, 5 two hours later.
    expect(whenCallsDone({ calls: [], limit: 2, reserve: 0, now, needed: 5 })).toBe(
      now + 2 * HOUR_MS,
    );
  });

  it('ignores calls that left the window', () => {
    const calls = [now - HOUR_MS, now - HOUR_MS - 1];
    expect(whenCallsDone({ calls, limit: 1, reserve: 0, now, needed: 1 })).toBe(now);
  });
});
