import { describe, expect, it } from 'vitest';
import {
  decideGuard,
  decideSnapshotGuard,
  emptiedQueries,
  type GuardFigures,
  type GuardThresholds,
} from '../../../src/domain/guard.ts';

const defaults: GuardThresholds = { zeroPercent: 50, dropPercent: 80, minKeys: 50 };

/** 100 keys in stock, each at 10 on the portal; `zeroed` of them set to 0, the rest kept. */
function figures(over: Partial<GuardFigures> = {}): GuardFigures {
  return {
    keysNamed: 100,
    keysUnknown: 0,
    keysInStock: 100,
    keysZeroed: 0,
    sumBefore: 1000,
    sumAfter: 1000,
    ...over,
  };
}

describe('guard rails: the zero check (GUARD_ZERO_PERCENT)', () => {
  it('holds a set that zeroes more than the threshold of the in-stock keys it names', () => {
    const v = decideGuard(figures({ keysZeroed: 51, sumAfter: 490 }), defaults);
    expect(v.hold).toBe(true);
    expect(v.tripped).toEqual(['zero']);
    expect(v.zeroedPercent).toBe(51);
    expect(v.reason).toMatch(/51 of the 100 keys .* to 0 \(51%, GUARD_ZERO_PERCENT is 50\)/);
  });

  it('passes exactly at the threshold (more than, not as many as)', () => {
    const v = decideGuard(figures({ keysZeroed: 50, sumAfter: 500 }), defaults);
    expect(v).toMatchObject({ hold: false, tripped: [], reason: '', zeroedPercent: 50 });
  });

  it('is off at 100, even when every key would be zeroed', () => {
    const v = decideGuard(figures({ keysZeroed: 100, sumAfter: 0 }), {
      ...defaults,
      zeroPercent: 100,
      dropPercent: 100,
    });
    expect(v.hold).toBe(false);
    expect(v.checked).toBe(true);
  });

  it('at 0, one zeroed key holds', () => {
    const v = decideGuard(figures({ keysZeroed: 1, sumAfter: 990 }), {
      ...defaults,
      zeroPercent: 0,
    });
    expect(v.tripped).toEqual(['zero']);
  });
});

describe('guard rails: the drop check (GUARD_DROP_PERCENT)', () => {
  it('holds a set that lowers the known sum by more than the threshold, with no key at 0', () => {
    const v = decideGuard(figures({ sumAfter: 100 }), defaults);
    expect(v.tripped).toEqual(['drop']);
    expect(v.dropPercent).toBe(90);
    expect(v.reason).toMatch(/from 1000 to 100 \(−90%, GUARD_DROP_PERCENT is 80\)/);
  });

  it('passes a drop of exactly the threshold, and any rise', () => {
    expect(decideGuard(figures({ sumAfter: 200 }), defaults).hold).toBe(false);
    expect(decideGuard(figures({ sumAfter: 5000 }), defaults)).toMatchObject({
      hold: false,
      dropPercent: 0,
    });
  });

  it('is off at 100', () => {
    const v = decideGuard(figures({ sumAfter: 1 }), { ...defaults, dropPercent: 100 });
    expect(v.hold).toBe(false);
  });

  it('names both checks when both trip', () => {
    const v = decideGuard(figures({ keysZeroed: 90, sumAfter: 10 }), defaults);
    expect(v.tripped).toEqual(['zero', 'drop']);
    expect(v.reason.split('; ')).toHaveLength(2);
  });
});

describe('guard rails: GUARD_MIN_KEYS and unknown keys', () => {
  it('does not look at a set naming fewer in-stock keys than GUARD_MIN_KEYS', () => {
    const v = decideGuard(
      figures({ keysNamed: 49, keysInStock: 49, keysZeroed: 49, sumBefore: 490, sumAfter: 0 }),
      defaults,
    );
    expect(v).toMatchObject({ hold: false, checked: false, zeroedPercent: 100 });
  });

  it('looks at a set naming exactly GUARD_MIN_KEYS in-stock keys', () => {
    const v = decideGuard(
      figures({ keysNamed: 50, keysInStock: 50, keysZeroed: 50, sumBefore: 500, sumAfter: 0 }),
      defaults,
    );
    expect(v).toMatchObject({ hold: true, checked: true });
  });

  it('counts keys unknown to the portal as unknown, not as stock that would vanish', () => {
    // 1,000 keys named, 980 never seen on the portal: only the 20 known ones are compared.
    const v = decideGuard(
      {
        keysNamed: 1000,
        keysUnknown: 980,
        keysInStock: 20,
        keysZeroed: 20,
        sumBefore: 200,
        sumAfter: 0,
      },
      defaults,
    );
    expect(v.hold).toBe(false);
    expect(v.checked).toBe(false);
  });

  it('with nothing in stock on the portal there is nothing to protect', () => {
    const v = decideGuard(
      { keysNamed: 500, keysUnknown: 0, keysInStock: 0, keysZeroed: 0, sumBefore: 0, sumAfter: 0 },
      { ...defaults, minKeys: 0 },
    );
    expect(v).toMatchObject({ hold: false, checked: false });
  });
});

describe('guard rails: a snapshot query that suddenly returns no rows', () => {
  it('names the queries that returned nothing where the last applied read had rows', () => {
    expect(emptiedQueries({ factory: 0, dc: 40 }, { factory: 120, dc: 40 })).toEqual(['factory']);
    expect(emptiedQueries({ factory: 0, dc: 0 }, { factory: 1, dc: 2 })).toEqual(['factory', 'dc']);
    expect(emptiedQueries({ factory: 0, dc: 0 }, { factory: 0, dc: 0 })).toEqual([]);
    expect(emptiedQueries({ factory: 0, dc: 0 }, undefined)).toEqual([]);
  });

  it('holds an emptied read whatever the percent settings and GUARD_MIN_KEYS say', () => {
    const none = { keysNamed: 0, keysUnknown: 0, keysInStock: 0, keysZeroed: 0, sumBefore: 0 };
    const v = decideSnapshotGuard(
      { ...none, sumAfter: 0 },
      { zeroPercent: 100, dropPercent: 100, minKeys: 1000 },
      ['factory'],
      { factory: 120, dc: 0 },
    );
    expect(v).toMatchObject({ hold: true, tripped: ['emptied'] });
    expect(v.reason).toBe('the factory query returned no rows where the last applied read had 120');
  });

  it('otherwise decides a read like a file', () => {
    const v = decideSnapshotGuard(figures({ keysZeroed: 80, sumAfter: 200 }), defaults, [], {
      factory: 100,
      dc: 0,
    });
    expect(v.tripped).toEqual(['zero']);
  });
});
