import { cellText, type HeadRow } from '../parse/head/fileHead.ts';
import { normalizeColumn } from '../parse/header.ts';
import type { SuggestedRow } from './headRows.ts';

/** The column (0 = A) of letters (`A`, `BM`), or -1 when they are none. */
function letterIndex(letters: string): number {
  if (!/^[A-Za-z]{1,3}$/.test(letters)) return -1;
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/**
 * Where a profile's column reference points in a header: a name (the first column of that name),
 * a 1-based position, a letter, a repeated name's occurrence; -1 when nowhere (an expression).
 */
export function refIndex(ref: unknown, header: readonly string[] | undefined): number {
  const same = (name: string) =>
    (header ?? []).flatMap((h, i) => (normalizeColumn(h) === normalizeColumn(name) ? [i] : []));
  if (typeof ref === 'number') return ref - 1;
  if (typeof ref === 'string') return same(ref)[0] ?? -1;
  if (ref === null || typeof ref !== 'object') return -1;
  const r = ref as { letter?: unknown; name?: unknown; occurrence?: unknown };
  if (typeof r.letter === 'string') return letterIndex(r.letter);
  if (typeof r.name === 'string') {
    const all = same(r.name);
    return r.occurrence === 'last' ? (all.at(-1) ?? -1) : (all[Number(r.occurrence) - 1] ?? -1);
  }
  return -1;
}

/**
 * The first data rows as the cells a profile names (its columns, its spread's columns), for a
 * profile this version cannot read yet: shown, not read.
 */
export function notReadRows(
  profile: Readonly<Record<string, unknown>>,
  header: readonly string[] | undefined,
  rows: readonly HeadRow[],
): SuggestedRow[] {
  const fields: Array<[string, number | 'expression']> = [];
  for (const [field, ref] of Object.entries((profile.columns ?? {}) as Record<string, unknown>)) {
    const isExpr = ref !== null && typeof ref === 'object' && 'expr' in ref;
    fields.push([field, isExpr ? 'expression' : refIndex(ref, header)]);
  }
  for (const column of Object.keys((profile.spread ?? {}) as Record<string, unknown>)) {
    fields.push([column, refIndex(column, header)]);
  }
  return rows.map((row) => ({
    line: row.line,
    outcome: 'not read' as const,
    cells: Object.fromEntries(
      fields.map(([field, at]) => [
        field,
        at === 'expression' ? '(an expression)' : at < 0 ? '' : cellText(row.cells[at]),
      ]),
    ),
  }));
}
