import type { ColumnFacts } from './columnFacts.ts';
import {
  BIN_TERMS,
  CARRIER_TERMS,
  LOCATION_TERMS,
  LOT_TERMS,
  NAME_TERMS,
  NOT_QUANTITY,
  NOT_SKU,
  ORDER_TERMS,
  QUANTITY_TERMS,
  SKU_TERMS,
  TRACKING_TERMS,
  UNKNOWN_TEXTS,
  ZERO_TEXTS,
} from './columnVocabulary.ts';
import { foldText, nameFit, names, type Terms } from './columnWords.ts';

/** A column of the table the suggestion reads: where it is, what its header says, what it holds. */
export interface Column {
  readonly index: number;
  /** The header cell's text as written, trimmed ('' when empty, or without a header). */
  readonly name: string;
  /** What it is called for the suggestion: its header cell, after the label of the row over it. */
  readonly label: string;
  readonly facts: ColumnFacts;
}

/** How strongly a label says it is one of `terms`: whole names fully, words of it less, and less again beside `not` words. */
export function labelWeight(label: string, terms: Terms, not: readonly string[]): number {
  let whole = 0;
  let part = 0;
  for (const [term, weight] of terms) {
    const f = nameFit(label, term);
    if (f === 'whole') whole = Math.max(whole, weight);
    else if (f === 'part') part = Math.max(part, weight * 0.7);
  }
  if (whole > 0) return whole;
  return names(label, not) ? part - 4 : part;
}

const share = (n: number, of: number) => (of === 0 ? 0 : n / of);

/** Values of a quantity column that a profile's `values` can give a meaning. */
function knownTexts(f: ColumnFacts): number {
  let n = 0;
  for (const [text, count] of f.texts) {
    const t = foldText(text);
    if (ZERO_TEXTS.includes(t) || UNKNOWN_TEXTS.includes(t)) n += count;
  }
  return n;
}

/** Whether a column reads as quantities: numbers (or the texts `values` knows) in most cells. */
export function holdsQuantities(f: ColumnFacts): boolean {
  return f.filled > 0 && f.numbers + knownTexts(f) >= f.filled * 0.7 && f.numbers > 0;
}

/** Near places and lots: a column about where or which lot is no SKU. */
const PLACE_WORDS = [...LOCATION_TERMS, ...BIN_TERMS, ...LOT_TERMS];

/** The SKU score: a code's name, and values that are filled, distinct, code-like and short. */
export function skuScore(c: Column): number {
  const f = c.facts;
  if (f.filled === 0) return Number.NEGATIVE_INFINITY;
  let name = labelWeight(c.label, SKU_TERMS, NOT_SKU);
  if (names(c.label, PLACE_WORDS) || (name < 3 && names(c.label, NOT_SKU))) name -= 3;
  let values =
    2 * share(f.codes, f.filled) +
    1.5 * share(f.distinct, f.filled) +
    share(f.filled, f.rows) -
    2 * share(f.spaced, f.filled);
  if (f.counting) values -= 2;
  // Rows per place or lot repeat a SKU, but a column of a few values repeated is a category.
  if (f.distinct < f.filled / 2) values -= 1.5;
  if (f.numbers === f.filled && f.codes < f.filled / 2) values -= 2;
  if (f.flags > f.filled * 0.8) values -= 3;
  if (f.dates > f.filled / 2) values -= 3;
  if (f.meanLength > 40) values -= 2;
  return 1.5 * name + values;
}

/** The quantity score: a quantity's name, and values that are whole numbers, not ids, flags or codes. */
export function quantityScore(c: Column): number {
  const f = c.facts;
  if (!holdsQuantities(f)) return Number.NEGATIVE_INFINITY;
  const name = labelWeight(c.label, QUANTITY_TERMS, NOT_QUANTITY);
  let values =
    2 * share(f.numbers + knownTexts(f), f.filled) +
    share(f.wholes, f.numbers) +
    0.5 * share(f.filled, f.rows);
  if (f.counting) values -= 3;
  if (f.flags === f.filled && f.distinct <= 2) values -= 2.5;
  if (f.codes > f.filled / 2) values -= 2;
  if (name <= 0 && f.fractions > 0 && f.fractions === f.numbers) values -= 1;
  if (names(c.label, PLACE_WORDS)) values -= 3;
  return 1.5 * name + values;
}

/** Columns ranked by a score, best first, those that cannot be it left out. */
export function ranked(columns: readonly Column[], score: (c: Column) => number) {
  return columns
    .map((column) => ({ column, score: score(column) }))
    .filter((s) => Number.isFinite(s.score))
    .sort((a, b) => b.score - a.score || a.column.index - b.column.index);
}

/** The location column: named so (not a bin), filled, its values repeating as places do. */
export function pickLocation(columns: readonly Column[]): Column | undefined {
  const found = columns
    .filter((c) => names(c.label, LOCATION_TERMS) && !names(c.label, BIN_TERMS))
    .filter((c) => labelWeight(c.label, QUANTITY_TERMS, []) <= 0)
    .filter((c) => c.facts.filled >= c.facts.rows * 0.8 && c.facts.meanLength <= 40)
    .map((c) => ({ c, whole: LOCATION_TERMS.some((t) => nameFit(c.label, t) === 'whole') }))
    .sort((a, b) => Number(b.whole) - Number(a.whole) || a.c.index - b.c.index);
  return found[0]?.c;
}

/** A one-column-per-location layout: quantity columns named alike but for a place in each. */
export interface Spread {
  readonly columns: ReadonlyArray<{ readonly column: Column; readonly location: string }>;
  /** What their names share (`Inventory Available:`). */
  readonly stem: string;
}

/** The words of a label (as written), split at spaces and punctuation but kept as written. */
const wordsOf = (label: string) => label.split(/(?<=[\s:_\-/|()[\]])|(?=[\s:_\-/|()[\]])/);

/**
 * The largest group of quantity columns whose labels share a beginning or an end that names a
 * quantity (`Inventory Available: Shop location`, `Stock London`, `LON qty`), the rest of each a
 * place: distinct, not a word that makes it another figure (`Minimal quantity`, `On hand (new)`).
 */
export function findSpread(columns: readonly Column[]): Spread | undefined {
  const candidates = columns.filter((c) => holdsQuantities(c.facts) && !c.facts.counting);
  const groups = new Map<string, { stem: string; columns: Spread['columns'][number][] }>();
  for (const c of candidates) {
    const parts = wordsOf(c.label);
    for (let k = 1; k < parts.length; k++) {
      const head = parts.slice(0, k).join('');
      const tail = parts.slice(k).join('');
      for (const [side, stem, place] of [
        ['start', head, tail],
        ['end', tail, head],
      ] as const) {
        const location = place.replace(TRIM_SEPARATORS, '');
        const named = stem.replace(TRIM_SEPARATORS, '');
        if (location === '' || named === '' || !isPlace(location)) continue;
        if (labelWeight(named, QUANTITY_TERMS, NOT_QUANTITY) <= 0) continue;
        const key = `${side}|${named.toLowerCase()}`;
        const group = groups.get(key) ?? { stem: named, columns: [] };
        if (!group.columns.some((g) => g.column === c)) group.columns.push({ column: c, location });
        groups.set(key, group);
      }
    }
  }
  let best: Spread | undefined;
  for (const group of groups.values()) {
    const places = new Set(group.columns.map((g) => g.location.toLowerCase()));
    if (group.columns.length < 2 || places.size < group.columns.length) continue;
    if (best === undefined || group.columns.length > best.columns.length) best = group;
  }
  return best;
}

const TRIM_SEPARATORS = /^[\s:_\-/|()[\]]+|[\s:_\-/|()[\]]+$/g;

/** Whether the rest of a quantity column's name can be a place: not another figure, not a time. */
function isPlace(text: string): boolean {
  if (names(text, NOT_QUANTITY) || labelWeight(text, QUANTITY_TERMS, []) > 0) return false;
  return !/^(current|new|old|total|all|sum|today|now|not editable)$/i.test(text);
}

/** The columns of shipment confirmations, when the table has an order and a tracking number. */
export function pickConfirmations(columns: readonly Column[]) {
  const by = (terms: readonly string[]) =>
    columns.find((c) => terms.some((t) => nameFit(c.label, t) === 'whole')) ??
    columns.find((c) => names(c.label, terms));
  const order = by(ORDER_TERMS);
  const tracking = by(TRACKING_TERMS);
  if (order === undefined || tracking === undefined || order === tracking) return undefined;
  const carrier = by(CARRIER_TERMS);
  return { order, tracking, ...(carrier === undefined ? {} : { carrier }) };
}

/** A product's name column (a products file names `sku` and `name`). */
export function pickName(columns: readonly Column[]): Column | undefined {
  return (
    columns.find((c) => NAME_TERMS.some((t) => nameFit(c.label, t) === 'whole')) ??
    columns.find((c) => names(c.label, NAME_TERMS) && c.facts.spaced > 0)
  );
}
