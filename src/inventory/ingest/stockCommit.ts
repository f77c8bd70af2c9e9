import type { Stats } from 'node:fs';
import type { StockKind } from '../../domain/stock.ts';
import { keepRowsAside } from '../../state/inbox/heldRowsAside.ts';
import { recordStagedApply } from '../../state/staging/stagedApplyTable.ts';
import { portalStockRead } from '../../state/stock/absentStock.ts';
import { zeroAbsentKeys } from '../apply/absentZeros.ts';
import { applyStagedSet, type BeforeApplyCheck } from '../apply/applyStaged.ts';
import { type GuardReport, guardStagedFile } from '../apply/guardFile.ts';
import { WalCheckpoints } from '../apply/walCheckpoints.ts';
import { nextTurn } from '../parse/yielder.ts';
import type { StagingFile } from '../staging/stagingFile.ts';
import type { CollectedFile } from './collect.ts';
import {
  applyDepsOf,
  type FileContext,
  type FileOutcome,
  notHandled,
  stockKindOf,
} from './fileContext.ts';
import { fileSourceTime } from './fileSourceTime.ts';
import { afterCommit } from './finishFile.ts';
import { commitHeld } from './heldCommit.ts';
import { PortalStockUnknownError } from './ingestErrors.ts';
import { type CommitResult, type Committed, commitRows } from './ledgerCommit.ts';
import type { FileReport } from './report.ts';

/**
 * A stock file whose rows are staged: the "before apply" checks (a full export's zeroes first,
 * the guard rails last), then the commit point records the ledger row and the apply together
 * (apply/applyStaged.ts), the merge follows in short transactions and completes the report. A
 * file the guard rails trip is held instead (heldCommit.ts).
 */
export async function commitStock(
  ctx: FileContext,
  st: Stats,
  hash: string,
  c: CollectedFile,
  staged: StagingFile,
): Promise<FileOutcome> {
  const { deps } = ctx;
  const kind = stockKindOf(c.kind);
  // A full export needs the portal's stock of its kind known before its keys can be zeroed
  // (when it cannot be read, the file stays in inbox/ and is read again).
  if (ctx.plan.absent === 'zero') await knowPortalStock(ctx, kind);
  // The guard rails run last in the "before apply" step (they see the rows other checks added):
  // a file that trips them is held here, its hold committed; the move to held/ follows once the
  // step is over.
  let guard: GuardReport | undefined;
  let held: CommitResult | undefined;
  let absentZeroed = 0;
  const row = { kind: c.kind, hash, size: st.size, ino: st.ino };
  // The file's modification time (never later than when it was seen, carried across jumps of the
  // clock back) orders files: one applied late (after a crash) never overwrites the rows of a
  // newer file. Worked out here, outside the commit point's transaction: it looks at the clock.
  const sourceAt = fileSourceTime(ctx.name, st, ctx.receivedAt, deps.log, deps.carriedMs?.() ?? 0);
  const guardCheck: BeforeApplyCheck = async (step) => {
    const g = await guardStagedFile(
      step.db,
      deps.guard,
      { contentHash: hash, table: step.table },
      nextTurn,
    );
    guard = g.report;
    if (!g.hold) return undefined;
    const aside = await keepRowsAside(step.db, step.table, nextTurn, (db) =>
      WalCheckpoints.start(db),
    );
    held = commitHeld(ctx, row, st, c, g.report, aside, absentZeroed);
    return { hold: g.report.reason };
  };
  // Before apply: a full export's set gains the keys it sets to 0 by omission, ahead of every
  // other check (the guard rails count them as keys it names).
  const checks = [
    ...(ctx.plan.absent === 'zero' ? [zeroAbsentKeys([kind], (_, n) => (absentZeroed = n))] : []),
    ...(deps.checks ?? []),
    guardCheck,
  ];
  const out = await applyStagedSet(
    { ...applyDepsOf(deps), checks },
    staged,
    { type: 'file', name: ctx.name, kind },
    (stagedFile) => {
      const result = commitRows(ctx, row, () => ({ type: 'stock', read: c, absentZeroed, guard }));
      if (typeof result !== 'object') return { applyId: undefined, result };
      const applyId = recordStagedApply(deps.db, {
        stagedFile,
        source: `file:${result.entry.id}`,
        fileId: result.entry.id,
        sourceAt,
        appliedAt: ctx.clock.now(),
      });
      return { applyId, result };
    },
  );
  if (out.status === 'held' && held !== undefined) return afterCommit(ctx, held, st);
  if (out.status === 'held') {
    deps.log.info(
      { event: 'file.not_applied', file: ctx.name, reason: out.reason },
      `${ctx.name} held before apply: ${out.reason}`,
    );
    return { ...notHandled('skipped', out.reason), status: 'held', kind: c.kind };
  }
  if (out.status === 'not_decided') return afterCommit(ctx, out.decided.result, st);
  deps.hooks?.afterCommit?.();
  const { entry } = out.decided.result as Committed;
  const fresh = ctx.ledger.get(entry.id)!;
  const outcome = await afterCommit(
    ctx,
    { entry: fresh, report: JSON.parse(fresh.report!) as FileReport },
    st,
  );
  return { ...outcome, pendingKeys: out.totals.differing };
}

/**
 * A full export zeroes the keys the portal holds that it omits: the portal's stock of that kind
 * must have been read once. Where it never was, it is read now (one read of the kind; logged).
 */
async function knowPortalStock(ctx: FileContext, kind: StockKind): Promise<void> {
  const { deps } = ctx;
  if (deps.readPortalStock === undefined || portalStockRead(deps.db, kind)) return;
  deps.log.info(
    { event: 'file.reading_portal', file: ctx.name, kind },
    `${ctx.name} is a full export: reading the portal's ${kind} stock first`,
  );
  if (!(await deps.readPortalStock(kind))) throw new PortalStockUnknownError(ctx.name, kind);
}
