import type { StockKind } from '../../domain/stock.ts';
import type { StateDb } from '../../state/db.ts';
import { keysHeldAboveZero, stageAbsentZeros } from '../../state/stock/absentStock.ts';
import { nextTurn } from '../parse/yielder.ts';
import type { BeforeApplyCheck } from './applyStaged.ts';

/**
 * The keys a full export (`absent: "zero"`, SNAPSHOT_ABSENT=zero) sets to 0 by omission: those of
 * its kind held above 0 (by the portal, or asked for by an earlier source) that it does not name —
 * for distribution-centre stock only at the centres it names, since a file of one warehouse says
 * nothing of the others. They are added to the export's staged rows in the step before the apply
 * (zeroAbsentKeys), so that they are compared, checked by the guard rails and pushed like any row
 * it names.
 *
 * This one counts them for a dry run (`plan`), from rows in memory: `names(dc, sku)` tells
 * whether the export names a key; `dcs` are the centres it names.
 */
export function* absentKeys(
  db: StateDb,
  kind: StockKind,
  names: (dc: string, sku: string) => boolean,
  dcs: ReadonlySet<string>,
): Generator<{ readonly dc: string; readonly sku: string }> {
  for (const key of keysHeldAboveZero(db, kind)) {
    if (kind === 'dc' && !dcs.has(key.dc)) continue;
    if (!names(key.dc, key.sku)) yield key;
  }
}

/**
 * The before-apply check of a full export: adds the keys of each kind it omits to the staged set
 * (line 0), and tells how many, a range of keys at a time with the event loop let in between.
 * Run it before the checks that may hold the set (the guard rails), so that they count these
 * keys as keys it names. It never holds.
 */
export function zeroAbsentKeys(
  kinds: readonly StockKind[],
  onZeroed: (kind: StockKind, keys: number) => void,
): BeforeApplyCheck {
  return async (step) => {
    for (const kind of kinds) onZeroed(kind, await stageAbsentZeros(step.db, kind, nextTurn));
    return undefined;
  };
}
