import { existsSync } from 'node:fs';
import { HeldStore } from '../../state/inbox/heldStore.ts';
import { type DecisionDeps, heldPathOf } from './heldLookup.ts';
import { moveToFailed } from './reject.ts';
import { moveBack } from './release.ts';

/**
 * At start: finishes the moves of released and rejected files that a crash cut short (the
 * decision is in state.db, the file still in held/). Returns how many it finished.
 */
export async function finishHeldDecisions(deps: DecisionDeps): Promise<number> {
  let finished = 0;
  for (const entry of new HeldStore(deps.db).decidedFiles()) {
    if (!existsSync(heldPathOf(deps.dataDir, entry))) continue;
    if (entry.status === 'released') await moveBack(deps.dataDir, entry);
    else await moveToFailed(deps, entry);
    finished++;
    deps.log?.info(
      { event: 'held.move_finished', heldId: entry.id, file: entry.name, status: entry.status },
      `the move of ${entry.status} file ${entry.id} (${entry.name}) finished after a restart`,
    );
  }
  return finished;
}
