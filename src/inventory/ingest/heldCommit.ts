import type { Stats } from 'node:fs';
import type { RowsAside } from '../../state/inbox/heldRowsAside.ts';
import { HeldStore } from '../../state/inbox/heldStore.ts';
import type { GuardReport } from '../apply/guardFile.ts';
import type { CollectedFile } from './collect.ts';
import type { FileContext } from './fileContext.ts';
import { type CommitResult, type CommitRow, commit } from './ledgerCommit.ts';

/**
 * A stock file the guard rails stopped, from inside the "before apply" step: its ledger row
 * (outcome 'held') and the held entry, in one transaction, with the rows the staged set had kept
 * aside for it just before (heldRowsAside.ts), and no data applied. The caller then writes the report and moves the file to held/
 * (afterCommit, outside the step). A crash before the move leaves the file in inbox/ with that
 * row 'committed': the next pass only finishes the move.
 */
export function commitHeld(
  ctx: FileContext,
  row: CommitRow,
  st: Stats,
  c: CollectedFile,
  guard: GuardReport,
  aside: RowsAside,
  absentZeroed: number,
): CommitResult {
  return commit(ctx, row, ({ ledgerId, storedAs }) => {
    const heldId = new HeldStore(ctx.deps.db).hold(
      {
        source: 'file',
        fileId: ledgerId,
        name: ctx.name,
        storedAs,
        kind: c.kind,
        contentHash: row.hash,
        reason: guard.reason,
        report: JSON.stringify(guard),
        sourceAt: Math.floor(st.mtimeMs),
        heldAt: ctx.clock.now(),
      },
      aside,
    );
    return { type: 'held', read: c, absentZeroed, guard, heldId };
  });
}
