import type { StockKind } from '../../domain/stock.ts';
import { perConnection, type StateDb } from '../db.ts';
import { KeyValueStore } from '../kv.ts';
import { kvKey } from '../kvKeys.ts';
import { RANGE_KEYS } from '../staging/stagedRanges.ts';
import { NAMED_TABLE_SQL } from '../staging/stagingWriter.ts';

/**
 * Full exports (a profile's `absent: "zero"`, `SNAPSHOT_ABSENT=zero`): every key of the kind that
 * the portal holds above 0 — or that an earlier file or snapshot asked to be above 0, a push of
 * it possibly still owed — and that the export does not name is set to 0. These are the
 * candidates: one indexed scan per kind, streamed (works on a read-only connection too).
 */
export function* keysHeldAboveZero(
  db: StateDb,
  kind: StockKind,
): Generator<{ readonly dc: string; readonly sku: string }> {
  yield* db
    .prepare<[{ kind: StockKind }], { dc: string; sku: string }>(
      `SELECT dc, sku FROM remote_stock WHERE kind = @kind AND quantity > 0
       UNION SELECT dc, sku FROM desired_stock WHERE kind = @kind AND quantity > 0`,
    )
    .iterate({ kind });
}

/**
 * Whether the portal's whole stock of a kind has been read once (remote_stock then holds every
 * key it has): without that, a full export cannot know which keys to zero.
 */
export function portalStockRead(db: StateDb, kind: StockKind): boolean {
  return new KeyValueStore(db).get(kvKey.readAt(kind)) !== undefined;
}

/**
 * The before-apply step of a full export, on the staged set (`staged.rows`, see
 * inventory/apply/applyStaged.ts): adds a row of quantity 0, line 0, for every key of `kind` held
 * above 0 that the set does not name — neither by a staged row nor in `named` (a row rejected for
 * its quantity, a row a profile keeps: a bad cell must not take a product off sale) — for DC stock
 * only at the centres the set names, `named` included. Returns how many rows it added.
 *
 * A range of SKUs of one centre at a time, `pause()` awaited between them: each range holds at
 * most `keys` keys of each of the four tables (remote_stock, desired_stock, the staged rows and
 * named keys), so that no statement walks a million keys on the event loop. The ranges cover
 * every SKU of the centre, so the keys added are those one statement over all of them would add;
 * each range sees the portal's stock as it is then.
 */
export async function stageAbsentZeros(
  db: StateDb,
  kind: StockKind,
  pause: () => Promise<void>,
  keys = RANGE_KEYS,
): Promise<number> {
  // A set staged by an earlier version (held, or an apply left by a restart across an upgrade)
  // has no `named` table: it names no key beyond its rows, as then.
  db.exec(NAMED_TABLE_SQL.replace(' named ', ' staged.named '));
  const s = absentStatements(db);
  let added = 0;
  for (const d of centres(db, kind)) {
    let after = '';
    for (;;) {
      const e = s.ends.get({ kind, d, s: after, limit: keys })!;
      // No key held above 0 after this one: nothing more to add at this centre.
      if (e.remote === null && e.desired === null) break;
      const es = [e.remote, e.desired, e.rows, e.named]
        .filter((x): x is string => x !== null)
        .reduce((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b)) <= 0 ? a : b));
      added += s.add.run({ kind, d, s: after, es }).changes;
      after = es;
      await pause();
    }
  }
  return added;
}

/** The centres a full export zeroes at: '' for factory stock; for DC stock, those the set names. */
function* centres(db: StateDb, kind: StockKind): Generator<string> {
  if (kind === 'factory') {
    yield '';
    return;
  }
  const next = absentStatements(db).nextCentre;
  for (let d = next.get({ d: '' }); d !== null && d !== undefined; d = next.get({ d })) yield d;
}

/** The SKUs of one centre after @s up to and with @es, in table `t`. */
const IN_SKUS = (t: string) => `${t} WHERE kind = @kind AND dc = @d AND sku > @s AND sku <= @es`;
/** The `limit`th SKU of one centre after @s in table `t` (or its last, or NULL). */
const END = (t: string) =>
  `(SELECT MAX(sku) FROM (SELECT sku FROM ${t} WHERE kind = @kind AND dc = @d AND sku > @s
                            ORDER BY sku LIMIT @limit))`;

type Ends = Record<'remote' | 'desired' | 'rows' | 'named', string | null>;

const absentStatements = perConnection((db: StateDb) => ({
  ends: db.prepare<[{ kind: StockKind; d: string; s: string; limit: number }], Ends>(
    `SELECT ${END('main.remote_stock')} AS remote, ${END('main.desired_stock')} AS desired,
            ${END('staged.rows')} AS rows, ${END('staged.named')} AS named`,
  ),
  add: db.prepare<[{ kind: StockKind; d: string; s: string; es: string }]>(
    `INSERT INTO staged.rows (kind, dc, sku, quantity, line)
     SELECT @kind, @d, sku, 0, 0 FROM (
       SELECT sku FROM ${IN_SKUS('main.remote_stock')} AND quantity > 0
       UNION SELECT sku FROM ${IN_SKUS('main.desired_stock')} AND quantity > 0
       EXCEPT SELECT sku FROM ${IN_SKUS('staged.rows')}
       EXCEPT SELECT sku FROM ${IN_SKUS('staged.named')})`,
  ),
  // The next centre the set names (by a row or a named key), one index seek each.
  nextCentre: db
    .prepare<[{ d: string }], string | null>(
      `SELECT MIN(dc) FROM (
         SELECT MIN(dc) AS dc FROM staged.rows WHERE kind = 'dc' AND dc > @d
         UNION ALL SELECT MIN(dc) FROM staged.named WHERE kind = 'dc' AND dc > @d)`,
    )
    .pluck(true),
}));
