import { describe, expect, it } from 'vitest';
import { COMPACTION, type CompactionState, compactionDue } from '../../src/daemon/compaction.ts';

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
