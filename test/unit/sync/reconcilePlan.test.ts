import { describe, expect, it } from 'vitest';
import { abandonFirstStartRead, chooseFirstStart } from '../../../src/sync/decide/firstStart.ts';
import {
  CHEAP_KIND_RATIO,
  type KindReading,
  planReconcile,
  type ReconcilePlanInput,
} from '../../../src/sync/decide/reconcilePlan.ts';

const MIN = 60_000;
const idle: KindReading = { established: true, inProgress: null, lastStartedAt: null };
const base: ReconcilePlanInput = {
  now: 100 * MIN,
  intervalMs: 15 * MIN,
  factory: idle,
  dc: idle,
  dcPagesSinceFactoryStart: Number.POSITIVE_INFINITY,
  dcPassPages: () => 3000,
};
const plan = (over: Partial<ReconcilePlanInput>) => planReconcile({ ...base, ...over });

describe('planReconcile', () => {
  it('reads the cheap kind first, then the dear one, when neither was ever read', () => {
    expect(plan({})).toEqual({ action: 'read', kind: 'factory', start: true });
    expect(
      plan({
        factory: { ...idle, lastStartedAt: 100 * MIN },
        dcPagesSinceFactoryStart: 0,
      }),
    ).toEqual({ action: 'read', kind: 'dc', start: true });
  });

  it('goes on with a pass in progress whatever the interval says, factory first', () => {
    const reading = { ...idle, inProgress: { startedAt: 99 * MIN }, lastStartedAt: 99 * MIN };
    expect(plan({ intervalMs: 0, dc: reading })).toEqual({
      action: 'read',
      kind: 'dc',
      start: false,
    });
    expect(plan({ intervalMs: 0, factory: reading, dc: reading })).toMatchObject({
      kind: 'factory',
    });
  });

  it('starts nothing of its own with the interval at 0, nor for a kind not established', () => {
    expect(plan({ intervalMs: 0 })).toEqual({ action: 'wait', until: null });
    expect(
      plan({ factory: { ...idle, established: false }, dc: { ...idle, established: false } }),
    ).toEqual({ action: 'wait', until: null });
  });

  it('takes a last pass dated ahead of the clock (it went back since) for one long ago', () => {
    const factory = { ...idle, lastStartedAt: 100 * MIN + 24 * 60 * MIN };
    const dc = { ...idle, lastStartedAt: 100 * MIN + 24 * 60 * MIN };
    expect(plan({ factory, dc })).toEqual({ action: 'read', kind: 'factory', start: true });
  });

  it('starts a kind at most once per interval, and says when the next is due', () => {
    const factory = { ...idle, lastStartedAt: 90 * MIN };
    const dc = { ...idle, lastStartedAt: 95 * MIN };
    expect(plan({ factory, dc })).toEqual({ action: 'wait', until: 105 * MIN });
    expect(plan({ factory, dc, now: 105 * MIN })).toEqual({
      action: 'read',
      kind: 'factory',
      start: true,
    });
  });

  it('interrupts a long DC pass for a factory pass only once it advanced by 1/5 of its pages', () => {
    expect(CHEAP_KIND_RATIO).toBe(5);
    const dc = { ...idle, inProgress: { startedAt: 0 }, lastStartedAt: 0 };
    const factory = { ...idle, lastStartedAt: 50 * MIN }; // due: 65 min < 100 min
    expect(plan({ factory, dc, dcPagesSinceFactoryStart: 599 })).toMatchObject({ kind: 'dc' });
    expect(plan({ factory, dc, dcPagesSinceFactoryStart: 600 })).toEqual({
      action: 'read',
      kind: 'factory',
      start: true,
    });
  });
});

describe('the first-start choice with the portal’s real size', () => {
  it('reads when the portal is as large as the file, pushes when it is known to be far larger', () => {
    const file = { kind: 'factory' as const, desiredRows: 100_000, batchSize: 1000 };
    expect(chooseFirstStart(file)).toMatchObject({ choice: 'read', readCalls: 40, pushCalls: 100 });
    expect(chooseFirstStart({ ...file, portalRows: 1_000_000 })).toMatchObject({
      choice: 'push',
      readCalls: 400,
      portalRows: 1_000_000,
    });
    // Pages already read count as spent.
    expect(chooseFirstStart({ ...file, portalRows: 300_000, pagesRead: 30 })).toMatchObject({
      choice: 'read',
      readCalls: 90,
    });
  });

  it('never lets a read cost more than the push would, whether the size is known or not', () => {
    const file = { kind: 'factory' as const, desiredRows: 100_000, batchSize: 1000 };
    expect(abandonFirstStartRead({ ...file, portalRows: 1_000_000, pagesRead: 1 })).toBe(true);
    expect(abandonFirstStartRead({ ...file, portalRows: 120_000, pagesRead: 1 })).toBe(false);
    expect(abandonFirstStartRead({ ...file, portalRows: null, pagesRead: 98 })).toBe(false);
    expect(abandonFirstStartRead({ ...file, portalRows: null, pagesRead: 99 })).toBe(true);
  });
});
