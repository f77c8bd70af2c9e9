import { type Clock, systemClock } from '../../domain/clock.ts';
import type { GuardThresholds } from '../../domain/guard.ts';
import { sourceTime } from '../../domain/sourceTime.ts';
import { emptyOfferSummary, type OfferSummary } from '../../domain/stockRules.ts';
import type { Logger } from '../../log/logger.ts';
import type { StateDb } from '../../state/db.ts';
import { portalStockRead } from '../../state/stock/absentStock.ts';
import { zeroAbsentKeys } from '../apply/absentZeros.ts';
import { applyStagedSet, type BeforeApplyCheck } from '../apply/applyStaged.ts';
import {
  guardSnapshotStaged,
  type SnapshotGuardOutcome,
  supersedeHeldSnapshot,
} from '../apply/guardSnapshot.ts';
import { nextTurn } from '../parse/yielder.ts';
import { StagingFile } from '../staging/stagingFile.ts';
import { recordSnapshotApply } from './snapshotApply.ts';
import { describeFailure, SnapshotFailure } from './snapshotFailure.ts';
import {
  fingerprint,
  LOGGED_REJECTIONS,
  readBoth,
  type SnapshotQueryDeps,
  type SnapshotRejection,
  snapshotWrittenAt,
} from './snapshotRows.ts';

export type { SnapshotRejection } from './snapshotRows.ts';

export interface SnapshotDeps extends SnapshotQueryDeps {
  readonly db: StateDb;
  readonly log: Logger;
  /** The data dir: the staged set is written under its staging/ folder. */
  readonly dataDir: string;
  /** The "before apply" step (see src/inventory/apply/applyStaged.ts). */
  readonly checks?: readonly BeforeApplyCheck[];
  /** Keys per merge transaction. */
  readonly chunkRows?: number;
  readonly clock?: Clock;
  /** How far the clock has gone back in all, as noticed (ms): added to the read's time. */
  readonly carriedMs?: () => number;
  /**
   * Guard rails (GUARD_* settings): the last check of the "before apply" step; a read that
   * trips them is held (kept aside in state.db), not applied. Absent: off.
   */
  readonly guard?: GuardThresholds;
  /**
   * SNAPSHOT_ABSENT: `zero` makes the snapshot a full picture — keys held above 0 that it does
   * not name are set to 0 (DC stock: at the centres it names). Default `keep`.
   */
  readonly absent?: 'keep' | 'zero';
  /**
   * Reads the portal's whole stock of a kind; with `absent: "zero"`, called first for a kind the
   * portal was never read of (true when complete). Unset: what state.db knows is used.
   */
  readonly readPortalStock?: (kind: 'factory' | 'dc') => Promise<boolean>;
}

export interface SnapshotCounts {
  readonly rowsRead: number;
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
  /** Rows superseded by a later row with the same key (the last one wins). */
  readonly duplicateRows: number;
  /** Rows whose location code was mapped to a portal DC code (`locations`). */
  readonly locationsMapped: number;
}

export type SnapshotOutcome =
  | {
      readonly status: 'read';
      readonly factory: SnapshotCounts;
      readonly dc: SnapshotCounts;
      /** Keys the snapshot did not name, set to 0 (SNAPSHOT_ABSENT=zero), per kind. */
      readonly absentZeroed: { factory: number; dc: number };
      /** Keys whose offered quantity now differs from the known remote one. */
      readonly pendingKeys: number;
      /** What the stock rules made of the ERP's quantities (both kinds). */
      readonly offers: OfferSummary;
      readonly ms: number;
    }
  | {
      /** A check of the "before apply" step held the snapshot: nothing was applied. */
      readonly status: 'held';
      readonly reason: string;
      /** The guard rails' held entry (what `release` and `reject` take), when they held it. */
      readonly heldId?: number;
    }
  | {
      readonly status: 'failed';
      /** missing | locked | corrupt | query | changed | dc_list | portal_unknown | error */
      readonly code: string;
      readonly reason: string;
    };

/**
 * Reads the ERP snapshot: a fresh read-only connection, both queries in one read transaction
 * (one consistent picture), each read row by row (`iterate()`), the event loop running every
 * 10 ms in between, rows checked like file rows (bad ones logged and counted) and
 * staged in a scratch database; then the staged set is applied as desired stock (source
 * 'snapshot') through the same steps as a file (src/inventory/apply/applyStaged.ts: the "before
 * apply" checks, one commit point, a chunked merge). SKUs absent from the snapshot are left as
 * they are. Never throws: a missing, locked, half-written or corrupt file gives
 * `{status: 'failed'}` and a `snapshot.failed` log line; try again later.
 */
export async function readSnapshot(deps: SnapshotDeps): Promise<SnapshotOutcome> {
  const clock = deps.clock ?? systemClock;
  const started = clock.now();
  const rejections: SnapshotRejection[] = [];
  let staging: StagingFile | undefined;
  try {
    const before = fingerprint(deps.snapshotDb);
    staging = StagingFile.create(deps.dataDir);
    const { factory, dc } = await readBoth(deps, staging, rejections);
    if (fingerprint(deps.snapshotDb) !== before) {
      throw new SnapshotFailure('changed', 'the snapshot changed while it was read');
    }
    // Counts of the replaced rows only (a worker thread works them out as it finishes).
    await staging.finish({ keys: 0, lines: 0 });
    const dups = staging.duplicateCounts();
    factory.duplicateRows = dups.factory;
    dc.duplicateRows = dups.dc;
    // A full picture: the keys it omits join its set before every other check (the guard rails
    // count them), once the portal's stock is known.
    const absentZeroed = { factory: 0, dc: 0 };
    let checks = deps.checks;
    if (deps.absent === 'zero') {
      await knowPortalStock(deps);
      checks = [
        zeroAbsentKeys(['factory', 'dc'], (kind, n) => {
          absentZeroed[kind] = n;
        }),
        ...(deps.checks ?? []),
      ];
    }
    const now = clock.now();
    // The snapshot's rows are as new as the ERP's last write to it (file or WAL), like a file's.
    // Never later than now: a snapshot dated in the future would pin its rows until then. Carried
    // across jumps of the clock back, as a file's time is.
    const writtenAt = sourceTime(
      snapshotWrittenAt(deps.snapshotDb),
      started,
      deps.carriedMs?.() ?? 0,
    ).at;
    const rowsRead = { factory: factory.rowsRead, dc: dc.rowsRead };
    // The guard rails run last in the "before apply" step: they see the rows other checks added.
    let guard: SnapshotGuardOutcome | undefined;
    const guardCheck: BeforeApplyCheck = async (step) => {
      guard = await guardSnapshotStaged(
        step.db,
        deps.guard,
        { staged: { table: step.table }, rowsRead, writtenAt },
        now,
        nextTurn,
      );
      return guard.hold ? { hold: guard.report.reason } : undefined;
    };
    const applied = await applyStagedSet(
      {
        db: deps.db,
        log: deps.log,
        dataDir: deps.dataDir,
        checks: [...(checks ?? []), guardCheck],
        ...(deps.chunkRows === undefined ? {} : { chunkRows: deps.chunkRows }),
      },
      staging,
      { type: 'snapshot' },
      (stagedFile) => ({
        applyId: recordSnapshotApply(deps.db, {
          stagedFile,
          rowsRead,
          writtenAt,
          now,
          restatesRelease: guard?.report?.released !== undefined,
        }),
      }),
    );
    staging.discard();
    staging = undefined;
    if (applied.status === 'held' && guard?.hold) {
      const g = guard;
      const fields = {
        event: g.repeated ? 'snapshot.still_held' : 'snapshot.held',
        file: deps.snapshotDb,
        heldId: g.heldId,
        reason: g.report.reason,
        tripped: g.report.tripped,
        figures: g.report.figures,
        rowsRead,
        examples: g.report.examples.slice(0, 5),
        ...(g.repeated ? { status: g.repeated } : {}),
        ...(g.superseded === undefined ? {} : { superseded: g.superseded }),
      };
      if (g.repeated) {
        deps.log.info(fields, `snapshot read still ${g.repeated} (${g.heldId}): same content`);
      } else {
        deps.log.warn(
          fields,
          `snapshot read held by the guard rails (release ${g.heldId} or reject ${g.heldId}): ${g.report.reason}`,
        );
      }
      return { status: 'held', reason: g.report.reason, heldId: g.heldId };
    }
    if (applied.status === 'held') {
      deps.log.warn(
        { event: 'snapshot.not_applied', file: deps.snapshotDb, reason: applied.reason },
        `snapshot held before apply: ${applied.reason}`,
      );
      return { status: 'held', reason: applied.reason };
    }
    const pending = applied.status === 'applied' ? applied.totals.differing : 0;
    if (applied.status === 'applied') {
      const superseded = supersedeHeldSnapshot(deps.db, clock.now());
      if (superseded !== undefined) {
        deps.log.info(
          { event: 'snapshot.held_superseded', heldId: superseded },
          `held snapshot read ${superseded} superseded by a newer read that was applied`,
        );
      }
    }
    const outcome: SnapshotOutcome = {
      status: 'read',
      factory: { ...factory },
      dc: { ...dc },
      absentZeroed,
      pendingKeys: pending,
      offers: applied.status === 'applied' ? applied.totals.offers : emptyOfferSummary(),
      ms: clock.now() - started,
    };
    if (rejections.length > 0) {
      deps.log.warn(
        {
          event: 'snapshot.rows_rejected',
          rejected: factory.rowsRejected + dc.rowsRejected,
          sample: rejections.slice(0, LOGGED_REJECTIONS),
        },
        'snapshot rows rejected',
      );
    }
    deps.log.info(
      {
        event: 'snapshot.read',
        file: deps.snapshotDb,
        factory: outcome.factory,
        dc: outcome.dc,
        ...(deps.absent === 'zero' ? { absentZeroed } : {}),
        pendingKeys: pending,
        offers: outcome.offers,
        ms: outcome.ms,
        ...(guard?.report?.released === undefined ? {} : { released: guard.report.released }),
      },
      'snapshot read',
    );
    return outcome;
  } catch (err) {
    staging?.discard();
    const failure = describeFailure(err);
    deps.log.warn(
      {
        event: 'snapshot.failed',
        file: deps.snapshotDb,
        code: failure.code,
        reason: failure.reason,
      },
      `snapshot not read: ${failure.reason}`,
    );
    return { status: 'failed', ...failure };
  }
}

/** SNAPSHOT_ABSENT=zero needs every key the portal holds: each kind read once, where never read. */
async function knowPortalStock(deps: SnapshotDeps): Promise<void> {
  for (const kind of ['factory', 'dc'] as const) {
    if (deps.readPortalStock === undefined || portalStockRead(deps.db, kind)) continue;
    deps.log.info(
      { event: 'snapshot.reading_portal', kind },
      `the snapshot is a full picture: reading the portal's ${kind} stock first`,
    );
    if (!(await deps.readPortalStock(kind))) {
      throw new SnapshotFailure(
        'portal_unknown',
        `the portal's ${kind} stock could not be read, so the keys the snapshot omits are not known`,
      );
    }
  }
}
