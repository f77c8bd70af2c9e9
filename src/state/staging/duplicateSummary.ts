import type Database from 'better-sqlite3';
import type { StockKind } from '../../domain/stock.ts';

/**
 * What a staged set's `duplicates` table says for the report (see stagingWriter.ts): the rows a
 * later row of their key replaced, by kind, and the first keys repeated with their lines. Over a
 * million replaced rows that is a second of work; a set large enough to be staged by a worker
 * thread has it worked out there, as the thread finishes (stagingFile.ts).
 */

/** How much of the repeated keys a report lists. */
export interface DuplicatesListed {
  /** Keys, by first repeat in the file. */
  readonly keys: number;
  /** Lines a key. */
  readonly lines: number;
}

export interface StagedDuplicates {
  /** Rows replaced by a later row with the same key. */
  readonly rows: number;
  /** The first `keys` keys by their first repeat, each with up to `lines` lines. */
  readonly keys: Array<{ kind: StockKind; dc: string; sku: string; lines: number[] }>;
  readonly keysOmitted: number;
}

export interface DuplicateSummary extends StagedDuplicates {
  /** Replaced rows by kind. */
  readonly byKind: Record<StockKind, number>;
}

/** The summary of the scratch database `db` (settled: no row left out of key order). */
export function summarizeDuplicates(
  db: Database.Database,
  listed: DuplicatesListed,
): DuplicateSummary {
  const byKind: Record<StockKind, number> = { factory: 0, dc: 0 };
  const counts = db
    .prepare<[], { kind: StockKind; n: number }>(
      'SELECT kind, COUNT(*) AS n FROM duplicates GROUP BY kind',
    )
    .all();
  for (const c of counts) byKind[c.kind] = c.n;
  const rows = byKind.factory + byKind.dc;
  if (rows === 0 || listed.keys === 0) return { rows, keys: [], keysOmitted: 0, byKind };
  db.exec('CREATE INDEX IF NOT EXISTS duplicates_key ON duplicates (kind, dc, sku, id)');
  const keyCount = db
    .prepare('SELECT COUNT(*) FROM (SELECT 1 FROM duplicates GROUP BY kind, dc, sku)')
    .pluck(true)
    .get() as number;
  // By first repeat in the file (rows out of key order are settled in key order: ids are not).
  const first = db.prepare<[number], { kind: StockKind; dc: string; sku: string }>(
    `SELECT kind, dc, sku FROM duplicates GROUP BY kind, dc, sku ORDER BY MIN(line) LIMIT ?`,
  );
  const lines = db.prepare<[string, string, string, number], { replaced: number; line: number }>(
    'SELECT replaced, line FROM duplicates WHERE kind = ? AND dc = ? AND sku = ? ORDER BY id LIMIT ?',
  );
  const keys = first.all(listed.keys).map((k) => {
    const seen = lines.all(k.kind, k.dc, k.sku, listed.lines);
    const list = [seen[0]!.replaced, ...seen.map((s) => s.line)].slice(0, listed.lines);
    return { ...k, lines: list };
  });
  return { rows, keys, keysOmitted: keyCount - keys.length, byKind };
}
