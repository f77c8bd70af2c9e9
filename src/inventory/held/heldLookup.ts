import { join } from 'node:path';
import { dataPaths } from '../../config/dataPaths.ts';
import { CodedError } from '../../failures/codedError.ts';
import type { Logger } from '../../log/logger.ts';
import type { StateDb } from '../../state/db.ts';
import type { HeldEntry, HeldStore } from '../../state/inbox/heldStore.ts';

/**
 * An operator's decision on what the guard rails hold (`release ID`, `reject ID`):
 * - release of a file: the entry is marked released in state.db, then the file goes back into
 *   inbox/ (never over another file) and is read again like any file, its content passing the
 *   guard rails; it keeps its modification time, so keys a newer file set since keep the newer
 *   values, and its report in processed/ counts them (`stock.supersededByNewerFile`);
 * - release of a snapshot read: its kept-aside rows are applied through the staged apply (the
 *   decision and the apply recorded in one transaction, the merge in chunks after it), with the
 *   snapshot's time, so the same rule holds;
 * - reject: a file goes to failed/ with its report saying so; a snapshot read is dropped.
 * State first, then the move: a crash in between leaves the decision recorded and the file in
 * held/, and the move is finished by the same command again or at the daemon's next start.
 */

/** Nothing held has the id; it was decided already; a held file is gone from held/. */
export type HeldProblem = 'E_HELD_UNKNOWN' | 'E_HELD_DECIDED' | 'E_HELD_FILE_GONE';

export class HeldDecisionError extends CodedError {
  readonly code: HeldProblem;

  constructor(code: HeldProblem, message: string) {
    super(message);
    this.code = code;
  }
}

export interface DecisionDeps {
  readonly db: StateDb;
  readonly dataDir: string;
  readonly now: () => number;
  readonly log?: Logger;
}

export function lookUp(store: HeldStore, id: number): HeldEntry {
  const entry = store.get(id);
  if (entry === undefined) {
    throw new HeldDecisionError(
      'E_HELD_UNKNOWN',
      `nothing held has id ${id} (\`supplier-sync held\` lists what is held)`,
    );
  }
  return entry;
}

export function alreadyDecided(entry: HeldEntry): HeldDecisionError {
  const at = entry.decidedAt === null ? '' : ` at ${new Date(entry.decidedAt).toISOString()}`;
  const what =
    entry.source === 'file'
      ? `held file ${entry.id} (${entry.name})`
      : `held snapshot read ${entry.id}`;
  const why =
    entry.status === 'superseded'
      ? 'superseded by a newer snapshot read that was applied or held'
      : entry.status;
  return new HeldDecisionError('E_HELD_DECIDED', `${what} is no longer held: ${why}${at}`);
}

export const heldPathOf = (dataDir: string, entry: HeldEntry) =>
  join(dataPaths(dataDir).held, entry.storedAs ?? '');
