import { afterEach, describe, expect, it } from 'vitest';
import {
  COMPACTION,
  type CompactionState,
  compactionDue,
  startIdleCompaction,
} from '../../src/daemon/compaction.ts';
import { createLogger } from '../../src/log/logger.ts';

/** When an idle daemon gives memory back (src/daemon/compaction.ts): a pure decision. */
const MiB = 1024 * 1024;
const idle: CompactionState = {
  now: 1_000_000,
  utilisation: 0.01,
  heapBytes: 60 * MiB,
  heapAfterLast: undefined,
  lastAt: undefined,
};

describe('compactionDue', () => {
  it('compacts a daemon idle since its start once', () => {
    expect(compactionDue(idle)).toBe(true);
  });

  it('not while the event loop is busy (a file being read, a push being planned)', () => {
    expect(compactionDue({ ...idle, utilisation: COMPACTION.idleUtilisation })).toBe(false);
    expect(compactionDue({ ...idle, utilisation: 0.8 })).toBe(false);
  });

  it('again only once the heap has grown since, and not sooner than the least gap', () => {
    const after = { ...idle, heapAfterLast: 30 * MiB, lastAt: idle.now - COMPACTION.minGapMs };
    expect(compactionDue({ ...after, heapBytes: 30 * MiB + COMPACTION.minGrowthBytes - 1 })).toBe(
      false,
    );
    expect(compactionDue({ ...after, heapBytes: 30 * MiB + COMPACTION.minGrowthBytes })).toBe(true);
    expect(
      compactionDue({ ...after, heapBytes: 90 * MiB, lastAt: idle.now - COMPACTION.minGapMs + 1 }),
    ).toBe(false);
  });

  it('again after work since the last, once the loop is idle, however little the heap grew', () => {
    const after = { ...idle, heapAfterLast: 30 * MiB, lastAt: idle.now - COMPACTION.minGapMs };
    expect(compactionDue({ ...after, heapBytes: 31 * MiB, workedSinceLast: true })).toBe(true);
    expect(compactionDue({ ...after, heapBytes: 31 * MiB, workedSinceLast: false })).toBe(false);
    expect(
      compactionDue({ ...after, workedSinceLast: true, utilisation: COMPACTION.idleUtilisation }),
    ).toBe(false);
    expect(
      compactionDue({
        ...after,
        workedSinceLast: true,
        lastAt: idle.now - COMPACTION.minGapMs + 1,
      }),
    ).toBe(false);
  });
});

describe('startIdleCompaction', () => {
  const g = globalThis as { gc?: unknown };
  const had = g.gc;
  afterEach(() => {
    g.gc = had;
  });

  it('gives back what lies outside V8 too (state.db’s page cache), right after the collection', async () => {
    const calls: string[] = [];
    g.gc = () => calls.push('gc');
    const running = startIdleCompaction({
      log: createLogger({ level: 'silent', pretty: false }),
      now: Date.now,
      policy: { ...COMPACTION, everyMs: 5, idleUtilisation: 1.01, minGapMs: 0 },
      alsoRelease: () => calls.push('release'),
    });
    try {
      await expect.poll(() => calls.length, { timeout: 2000 }).toBeGreaterThanOrEqual(2);
      expect(calls.slice(0, 2)).toEqual(['gc', 'release']);
    } finally {
      running.stop();
    }
  });
});
