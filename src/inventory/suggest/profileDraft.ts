import { normalizeColumn } from '../parse/header.ts';
import { columnLetter } from './columnFacts.ts';
import type { Column } from './columnPicks.ts';

/**
 * A profile as the suggestion writes it: in the contract's language ("ERP exports as they
 * come"), only the fields that differ from their defaults, in the order the contract lists them.
 */

/** A column as a profile names it: its header name, a position, a letter, or a repeated name's occurrence. */
export type DraftColumn =
  | string
  | number
  | { readonly letter: string }
  | { readonly name: string; readonly occurrence: number | 'last' };

export interface DraftCondition {
  readonly column: DraftColumn;
  readonly equals: readonly string[];
  readonly then: 'skip' | 'keep' | 'zero';
}

export interface ProfileDraft {
  match: string;
  kind?: 'factory' | 'dc' | 'confirmations' | 'products';
  sheet?: string | number;
  delimiter?: string;
  headerLine?: number;
  dataLine?: number;
  columns: Record<string, DraftColumn>;
  constants?: Record<string, string>;
  decimal?: ',';
  negative?: 'zero';
  duplicates?: 'sum';
  values?: Record<string, number | 'skip' | 'keep'>;
  when?: DraftCondition[];
  fractions?: 'floor';
  subtract?: DraftColumn[];
  spread?: Record<string, string>;
}

/** The contract's order of a profile's fields. */
const ORDER: ReadonlyArray<keyof ProfileDraft> = [
  'match',
  'kind',
  'sheet',
  'delimiter',
  'headerLine',
  'dataLine',
  'columns',
  'constants',
  'decimal',
  'negative',
  'duplicates',
  'values',
  'when',
  'fractions',
  'subtract',
  'spread',
];

/** The draft with its fields in the contract's order, empty ones left out. */
export function ordered(draft: ProfileDraft): ProfileDraft {
  const out: Record<string, unknown> = {};
  for (const key of ORDER) {
    const v = draft[key];
    if (v === undefined) continue;
    if (
      typeof v === 'object' &&
      !Array.isArray(v) &&
      key !== 'columns' &&
      Object.keys(v).length === 0
    )
      continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[key] = v;
  }
  return out as unknown as ProfileDraft;
}

/**
 * How a profile names a column of a table: by position when the table has no header (or is
 * one of objects: by key); by its header name when that names it alone; by occurrence when the
 * header repeats the name; by letter when its header cell is empty.
 */
export function columnRef(
  column: Column,
  header: readonly string[] | undefined,
  positional: boolean,
): DraftColumn {
  if (positional || header === undefined) return positional ? column.index + 1 : column.name;
  const name = column.name;
  if (name === '') return { letter: columnLetter(column.index) };
  const folded = normalizeColumn(name);
  const same = header
    .map((h, i) => ({ h: normalizeColumn(h), i }))
    .filter((x) => x.h === folded)
    .map((x) => x.i);
  if (same.length <= 1) return name;
  const k = same.indexOf(column.index);
  return { name, occurrence: k === same.length - 1 ? 'last' : k + 1 };
}

/** Whether a column reference needs the new ways of naming a column (letter, occurrence). */
export const isPlainRef = (ref: DraftColumn): ref is string | number =>
  typeof ref === 'string' || typeof ref === 'number';

/**
 * A `match` glob for files like this one: its runs of digits (dates, times, sequence numbers,
 * with the separators between them) as `*`; a name without digits as it is. `*` and `?` in the
 * name itself stand for one character.
 */
export function matchFor(fileName: string): string {
  const plain = fileName.replace(/[*?]/g, '?');
  return plain.replace(/\d+(?:[-_.: T]?\d+)*/g, '*');
}
