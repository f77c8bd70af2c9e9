import type { Statement } from 'better-sqlite3';
import { perConnection, type StateDb } from '../db.ts';

/**
 * A staged set's keys in ranges of a bounded size, for the work on a whole set that would
 * otherwise be one long statement (the guard rails' figures, a fingerprint of its rows): one
 * range per step, the event loop let in between.
 *
 * A range is one kind and dc, its SKUs after `s` up to and with `es` — the shape the merge's
 * chunks have (stagedMerge.ts): four times cheaper a row than a row-value range.
 */
export interface KeyRange {
  readonly k: string;
  readonly d: string;
  readonly s: string;
  readonly es: string;
}

/** A row of alias `t` is in the range bound as @k, @d, @s, @es. */
export const IN_RANGE = (t: string) =>
  `${t}.kind = @k AND ${t}.dc = @d AND ${t}.sku > @s AND ${t}.sku <= @es`;

/** Keys a step takes: about what a merge chunk takes (DEFAULT_CHUNK_ROWS). */
export const RANGE_KEYS = 5000;

const TABLE = /^(temp\.|main\.|staged\.)?[a-z_][a-z0-9_]*$/i;

interface Walk {
  readonly next: Statement<[{ k: string; d: string; s: string }], KeyRange>;
  readonly end: Statement<[{ k: string; d: string; s: string; limit: number }], string>;
}

const walks = perConnection((): Map<string, Walk> => new Map());

function walk(db: StateDb, table: string): Walk {
  const cache = walks(db);
  const known = cache.get(table);
  if (known !== undefined) return known;
  if (!TABLE.test(table)) throw new Error(`not a table name: ${table}`);
  const w: Walk = {
    // The first key after the last range: where the next starts (maybe in the next kind or dc).
    next: db.prepare<[{ k: string; d: string; s: string }], KeyRange>(
      `SELECT kind AS k, dc AS d, sku AS es FROM ${table} WHERE (kind, dc, sku) > (@k, @d, @s)
          ORDER BY kind, dc, sku LIMIT 1`,
    ),
    end: db
      .prepare<[{ k: string; d: string; s: string; limit: number }], string>(
        `SELECT MAX(sku) FROM (SELECT sku FROM ${table} WHERE kind = @k AND dc = @d AND sku > @s
            ORDER BY sku LIMIT @limit)`,
      )
      .pluck(true),
  };
  cache.set(table, w);
  return w;
}

/**
 * The keys of `table` (columns kind, dc, sku, one row a key, indexed in that order: a staged
 * set's `rows`) in ranges of at most `keys`, in key order. Each step runs two short queries and
 * holds no statement open, so the caller may await between steps.
 */
export function* keyRanges(db: StateDb, table: string, keys = RANGE_KEYS): Generator<KeyRange> {
  const w = walk(db, table);
  let after = { k: '', d: '', s: '' };
  for (;;) {
    const first = w.next.get(after);
    if (first === undefined) return;
    // Within the last range's kind and dc, after its SKU; in the next ones, from their first.
    const same = first.k === after.k && first.d === after.d;
    const start = { k: first.k, d: first.d, s: same ? after.s : '' };
    const es = w.end.get({ ...start, limit: keys })!;
    yield { ...start, es };
    after = { k: start.k, d: start.d, s: es };
  }
}
