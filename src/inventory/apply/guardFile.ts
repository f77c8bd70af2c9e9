import {
  decideGuard,
  type GuardCheck,
  type GuardFigures,
  type GuardThresholds,
  type GuardVerdict,
} from '../../domain/guard.ts';
import { keyString, type StockKind } from '../../domain/stock.ts';
import type { StateDb } from '../../state/db.ts';
import { type HeldEntry, HeldStore } from '../../state/inbox/heldStore.ts';
import { InboxLedger } from '../../state/inbox/inboxLedger.ts';
import type { DesiredInput } from '../../state/stock/desiredStock.ts';
import {
  compareRows,
  compareStagedInSteps,
  type StagedComparison,
} from '../../state/stock/guardFigures.ts';

/**
 * The guard rails' step before a stock file is applied: compare its staged rows with what the
 * portal is known to hold and decide (domain/guard.ts) whether it is applied or held. The check
 * runs every time content is applied, against what the portal holds then: an operator's `release
 * ID` exempts the one inbox entry it put back (the first reading of those bytes after the
 * release), never the bytes for ever.
 */

/** What a report (held or applied) says about the guard rails. */
export interface GuardReport {
  readonly held: boolean;
  /** The held entry's id (what `release` and `reject` take), once held. */
  readonly heldId?: number;
  /** The checks that tripped; empty when passed. */
  readonly tripped: readonly GuardCheck[];
  readonly reason: string;
  /** Whether the set named enough in-stock keys for the percent checks to look at it. */
  readonly checked: boolean;
  readonly figures: GuardFigures & {
    readonly zeroedPercent: number;
    readonly dropPercent: number;
  };
  readonly thresholds: {
    readonly GUARD_ZERO_PERCENT: number;
    readonly GUARD_DROP_PERCENT: number;
    readonly GUARD_MIN_KEYS: number;
  };
  /** Up to 20 keys it would lower, zeroed ones first: key, portal quantity, new quantity. */
  readonly examples: ReadonlyArray<{
    readonly key: string;
    readonly portal: number;
    readonly quantity: number;
  }>;
  /** Set when the file was applied on an operator's `release`. */
  readonly released?: { readonly heldId: number; readonly heldAt: string };
}

export type GuardOutcome =
  | { readonly hold: false; readonly report: GuardReport | undefined }
  | { readonly hold: true; readonly report: GuardReport; readonly verdict: GuardVerdict };

/** The report section for a comparison and its verdict. */
export function guardReport(
  cmp: StagedComparison,
  verdict: GuardVerdict,
  t: GuardThresholds,
): GuardReport {
  const { examples, ...figures } = cmp;
  return {
    held: verdict.hold,
    tripped: verdict.tripped,
    reason: verdict.reason,
    checked: verdict.checked,
    figures: {
      ...figures,
      zeroedPercent: verdict.zeroedPercent,
      dropPercent: verdict.dropPercent,
    },
    thresholds: {
      GUARD_ZERO_PERCENT: t.zeroPercent,
      GUARD_DROP_PERCENT: t.dropPercent,
      GUARD_MIN_KEYS: t.minKeys,
    },
    examples: examples.map((e) => ({
      key: keyString(e),
      portal: e.portal,
      quantity: e.quantity,
    })),
  };
}

/**
 * The released entry this file is the put-back copy of, if it is: an operator released a held
 * file of this content and no file of this content has been committed since (the held file's
 * ledger row is still the newest with this content). Once the released file is applied (a new
 * ledger row), the same bytes dropped later are judged like any other file.
 */
export function releasedContent(db: StateDb, contentHash: string): HeldEntry | undefined {
  const released = new HeldStore(db).byHash(contentHash, 'released');
  if (released === undefined || released.fileId === null) return undefined;
  const newest = new InboxLedger(db).newestByHash(contentHash);
  return newest?.id === released.fileId ? released : undefined;
}

/**
 * The check of one stock file's rows before they are applied: undefined thresholds turn the
 * guard rails off (a caller without settings). The rows are staged for the check in one go
 * (`plan`, a benchmark); the pipeline's staged set is checked by guardStagedFile.
 */
export function guardStockFile(
  db: StateDb,
  thresholds: GuardThresholds | undefined,
  file: {
    readonly contentHash: string;
    readonly kind: StockKind;
    readonly rows: Iterable<DesiredInput>;
  },
): GuardOutcome {
  if (thresholds === undefined) return { hold: false, report: undefined };
  const cmp = compareRows(db, [{ kind: file.kind, rows: file.rows }]);
  return judgeFile(db, thresholds, cmp, file.contentHash);
}

/**
 * The check of a stock file's staged set (`table`, the pipeline's staged.rows), a range of keys
 * at a time with `pause()` awaited between them (compareStagedInSteps): a million keys are
 * seconds of queries, which the event loop must not wait for.
 */
export async function guardStagedFile(
  db: StateDb,
  thresholds: GuardThresholds | undefined,
  file: { readonly contentHash: string; readonly table: string },
  pause: () => Promise<void>,
): Promise<GuardOutcome> {
  if (thresholds === undefined) return { hold: false, report: undefined };
  // The offered quantities (after the stock rules) are what would reach the portal.
  const cmp = await compareStagedInSteps(db, file.table, pause);
  return judgeFile(db, thresholds, cmp, file.contentHash);
}

function judgeFile(
  db: StateDb,
  thresholds: GuardThresholds,
  cmp: StagedComparison,
  contentHash: string,
): GuardOutcome {
  const verdict = decideGuard(cmp, thresholds);
  const report = guardReport(cmp, verdict, thresholds);
  const released = releasedContent(db, contentHash);
  // An operator looked at this entry and released it: applied as it stands, this once.
  if (released !== undefined) return passedAsReleased(report, released);
  return verdict.hold ? { hold: true, report, verdict } : { hold: false, report };
}

/** A check's outcome for content an operator released: passed, the report naming the release. */
export function passedAsReleased(
  report: GuardReport,
  released: HeldEntry,
): { readonly hold: false; readonly report: GuardReport } {
  return {
    hold: false,
    report: {
      ...report,
      held: false,
      released: { heldId: released.id, heldAt: new Date(released.heldAt).toISOString() },
    },
  };
}

/** The thresholds from the settings (GUARD_ZERO_PERCENT, GUARD_DROP_PERCENT, GUARD_MIN_KEYS). */
export function guardThresholds(config: {
  readonly guardZeroPercent: number;
  readonly guardDropPercent: number;
  readonly guardMinKeys: number;
}): GuardThresholds {
  return {
    zeroPercent: config.guardZeroPercent,
    dropPercent: config.guardDropPercent,
    minKeys: config.guardMinKeys,
  };
}
