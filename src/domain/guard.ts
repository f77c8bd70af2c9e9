/**
 * Guard rails: the pure decision whether a stock file or a snapshot read looks like an ERP
 * mistake (a truncated table, a filter left on, a warehouse zeroed by a night job) and must be
 * held for a person instead of applied. The figures come from state/stock/guardFigures.ts (one query
 * comparing the staged rows with what the portal is known to hold); this module only decides.
 */

/** GUARD_ZERO_PERCENT, GUARD_DROP_PERCENT, GUARD_MIN_KEYS; 100 turns a percent check off. */
export interface GuardThresholds {
  /** Hold when more than this percent of the named keys that are above 0 would be set to 0. */
  readonly zeroPercent: number;
  /** Hold when the sum of the named keys' quantities would fall by more than this percent. */
  readonly dropPercent: number;
  /** The two checks only look at a set naming at least this many keys that are above 0. */
  readonly minKeys: number;
}

/**
 * A staged set compared with the portal. Keys the portal is not known to hold (never read, not
 * a product there) are unknown: they are in `keysNamed` and `keysUnknown`, never in the rest.
 * For a full export, the keys it sets to 0 by omission are staged rows like any other.
 */
export interface GuardFigures {
  /** Keys the set names (after deduplication; with the keys a full export zeroes). */
  readonly keysNamed: number;
  /** Of those, keys with no known quantity on the portal. */
  readonly keysUnknown: number;
  /** Named keys the portal is known to hold above 0. */
  readonly keysInStock: number;
  /** Of `keysInStock`, keys the set would set to 0. */
  readonly keysZeroed: number;
  /** Sum of the portal's quantities over the named keys it is known to hold. */
  readonly sumBefore: number;
  /** Sum of the set's quantities over those same keys. */
  readonly sumAfter: number;
}

export type GuardCheck = 'zero' | 'drop' | 'emptied';

export interface GuardVerdict {
  readonly hold: boolean;
  /** The checks that tripped (empty when not held). */
  readonly tripped: readonly GuardCheck[];
  /** One sentence per tripped check, for reports, logs and `held`; '' when not held. */
  readonly reason: string;
  /** Percent of the in-stock keys it would zero (0 when none are in stock). */
  readonly zeroedPercent: number;
  /** Percent the known sum would fall (0 when it would not fall or nothing is known). */
  readonly dropPercent: number;
  /** Whether the set was large enough for the two percent checks to look at it. */
  readonly checked: boolean;
}

/** Percent with one decimal, for people. */
const pct = (n: number) => Math.round(n * 10) / 10;

/**
 * Decides whether the set is held. Only sets naming at least `minKeys` keys that are above 0
 * on the portal are looked at; a check set to 100 never trips (nothing can be more than 100
 * percent); a check trips only when its figure is strictly above its threshold.
 */
export function decideGuard(f: GuardFigures, t: GuardThresholds): GuardVerdict {
  const zeroedPercent = f.keysInStock > 0 ? (f.keysZeroed / f.keysInStock) * 100 : 0;
  const dropPercent =
    f.sumBefore > 0 && f.sumAfter < f.sumBefore
      ? ((f.sumBefore - f.sumAfter) / f.sumBefore) * 100
      : 0;
  const checked = f.keysInStock >= t.minKeys && f.keysInStock > 0;
  const tripped: GuardCheck[] = [];
  const reasons: string[] = [];
  if (checked && t.zeroPercent < 100 && zeroedPercent > t.zeroPercent) {
    tripped.push('zero');
    reasons.push(
      `it would set ${f.keysZeroed} of the ${f.keysInStock} keys it names that are in stock on the portal to 0 (${pct(zeroedPercent)}%, GUARD_ZERO_PERCENT is ${t.zeroPercent})`,
    );
  }
  if (checked && t.dropPercent < 100 && dropPercent > t.dropPercent) {
    tripped.push('drop');
    reasons.push(
      `it would lower the stock of the keys it names from ${f.sumBefore} to ${f.sumAfter} (−${pct(dropPercent)}%, GUARD_DROP_PERCENT is ${t.dropPercent})`,
    );
  }
  return {
    hold: tripped.length > 0,
    tripped,
    reason: reasons.join('; '),
    zeroedPercent: pct(zeroedPercent),
    dropPercent: pct(dropPercent),
    checked,
  };
}

/** Rows a snapshot query returned, now and at the last applied read (undefined: never read). */
export interface SnapshotRowCounts {
  readonly factory: number;
  readonly dc: number;
}

/**
 * A snapshot read whose query suddenly returns no rows where the last applied read's returned
 * some (a table emptied or dropped and re-created by the ERP): the queries that did so, or
 * an empty list. Holds whatever the percent settings say: an empty table is never a real stock
 * picture of a range that had stock.
 */
export function emptiedQueries(
  now: SnapshotRowCounts,
  last: SnapshotRowCounts | undefined,
): Array<'factory' | 'dc'> {
  if (last === undefined) return [];
  const out: Array<'factory' | 'dc'> = [];
  if (now.factory === 0 && last.factory > 0) out.push('factory');
  if (now.dc === 0 && last.dc > 0) out.push('dc');
  return out;
}

/** The verdict for a snapshot read: the percent checks over both kinds, and the emptied check. */
export function decideSnapshotGuard(
  f: GuardFigures,
  t: GuardThresholds,
  emptied: ReadonlyArray<'factory' | 'dc'>,
  last: SnapshotRowCounts | undefined,
): GuardVerdict {
  const v = decideGuard(f, t);
  if (emptied.length === 0) return v;
  const says = emptied.map(
    (q) => `the ${q} query returned no rows where the last applied read had ${last?.[q] ?? 0}`,
  );
  return {
    ...v,
    hold: true,
    tripped: [...v.tripped, 'emptied'],
    reason: [...says, ...(v.reason ? [v.reason] : [])].join('; '),
  };
}
