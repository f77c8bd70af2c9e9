import { letterIndex } from '../../config/expr/exprCompile.ts';
import { MAX_COLUMN } from '../../config/profileColumns.ts';
import { normalizeColumn } from '../parse/header.ts';

/**
 * Columns as a profile names them (product contract, "Any export: expressions and spreadsheet
 * layouts"): a header name (a plain string, always; trimmed and case-folded), a 1-based position,
 * letters (`{ "letter": "BM" }`), or the K-th or last of a name a header repeats. Resolved once
 * per file against its header row, into the index of the column.
 */
export type ColumnRef =
  | string
  | number
  | { readonly letter: string }
  | { readonly name: string; readonly occurrence: 'last' | number };

/** A header as resolved against: its names (normalized, '' for an empty cell), in place. */
export interface HeaderNames {
  readonly names: readonly string[];
  /** Whether columns right of the last header cell may be read (a worksheet's are; a text file's rows are as wide as its header). */
  readonly open: boolean;
}

/** Where a reference points: a column index, nowhere (the header lacks it), or an ambiguity. */
export type Resolved =
  | { readonly index: number }
  | { readonly missing: true }
  | { readonly ambiguous: string };

/** A reference for a message: `"Qty"`, `column 3`, `column BM`, `the last "End Stock"`. */
export function describeRef(ref: ColumnRef): string {
  if (typeof ref === 'string') return `"${ref}"`;
  if (typeof ref === 'number') return `column ${ref}`;
  if ('letter' in ref) return `column ${ref.letter.trim().toUpperCase()}`;
  const which = ref.occurrence === 'last' ? 'the last' : `occurrence ${ref.occurrence} of`;
  return `${which} "${ref.name}"`;
}

/** Positions of each name in a header (names given more than once have several). */
export function namePositions(names: readonly string[]): Map<string, number[]> {
  const at = new Map<string, number[]>();
  names.forEach((name, i) => {
    if (name === '') return;
    const list = at.get(name);
    if (list === undefined) at.set(name, [i]);
    else list.push(i);
  });
  return at;
}

/** Where `ref` points in a header (`at`: namePositions of its names). */
export function resolveRef(
  ref: ColumnRef,
  header: HeaderNames,
  at: ReadonlyMap<string, readonly number[]>,
): Resolved {
  const within = (index: number): Resolved =>
    index < header.names.length || (header.open && index < MAX_COLUMN)
      ? { index }
      : { missing: true };
  if (typeof ref === 'number') return within(ref - 1);
  if (typeof ref === 'object' && 'letter' in ref) return within(letterIndex(ref.letter.trim()));
  const name = normalizeColumn(typeof ref === 'string' ? ref : ref.name);
  const positions = at.get(name);
  if (positions === undefined) return { missing: true };
  if (typeof ref === 'string') {
    if (positions.length === 1) return { index: positions[0]! };
    return {
      ambiguous: `column "${name}" appears ${positions.length} times in the header; name one with { "name", "occurrence" } or by its letter`,
    };
  }
  const k = ref.occurrence === 'last' ? positions.length : ref.occurrence;
  return k <= positions.length ? { index: positions[k - 1]! } : { missing: true };
}
