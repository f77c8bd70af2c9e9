import type { StockKind } from '../../domain/stock.ts';
import type { ScratchDb } from './stagingWriter.ts';

/** What a staged set's scratch database says once written (stagingWriter.ts writes it). */

export interface StagedDuplicates {
  /** Rows replaced by a later row with the same key. */
  readonly rows: number;
  /** The first `maxKeys` keys by their first repeat, each with up to `maxLines` lines. */
  readonly keys: Array<{ kind: StockKind; dc: string; sku: string; lines: number[] }>;
  readonly keysOmitted: number;
}

/** Rows in the staged set (distinct keys). */
export function countStagedRows(db: ScratchDb): number {
  return db.prepare('SELECT COUNT(*) FROM rows').pluck(true).get() as number;
}

/** The replaced rows, for the report: keys by their first repeat in the file. */
export function stagedDuplicates(
  db: ScratchDb,
  maxKeys: number,
  maxLines: number,
): StagedDuplicates {
  const rows = db.prepare('SELECT COUNT(*) FROM duplicates').pluck(true).get() as number;
  if (rows === 0) return { rows: 0, keys: [], keysOmitted: 0 };
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
  const keys = first.all(maxKeys).map((k) => {
    const seen = lines.all(k.kind, k.dc, k.sku, maxLines);
    const list = [seen[0]!.replaced, ...seen.map((s) => s.line)].slice(0, maxLines);
    return { ...k, lines: list };
  });
  return { rows, keys, keysOmitted: keyCount - keys.length };
}

/** Replaced rows by kind. */
export function stagedDuplicateCounts(db: ScratchDb): Record<StockKind, number> {
  const out: Record<StockKind, number> = { factory: 0, dc: 0 };
  const rows = db
    .prepare<[], { kind: StockKind; n: number }>(
      'SELECT kind, COUNT(*) AS n FROM duplicates GROUP BY kind',
    )
    .all();
  for (const r of rows) out[r.kind] = r.n;
  return out;
}
