import { cellText, type HeadRow } from '../parse/head/fileHead.ts';
import { type Column, holdsQuantities } from './columnPicks.ts';
import {
  isAvailable,
  LOT_TERMS,
  PARENT_TYPES,
  RESERVED_TERMS,
  STATUS_TERMS,
  TYPE_TERMS,
  UNIT_TERMS,
  UNKNOWN_TEXTS,
  ZERO_STATUSES,
  ZERO_TEXTS,
} from './columnVocabulary.ts';
import { foldText, nameFit, names } from './columnWords.ts';
import type { DraftColumn, DraftCondition, ProfileDraft } from './profileDraft.ts';

/**
 * The parts of a profile beyond its columns, from what the data rows hold: the decimal mark,
 * negatives, fractions, quantity texts, row conditions on status and type columns, a reserved
 * figure to take off, rows of one key to add up. Each comes with the sentence that says why.
 */
export interface RulesGuess {
  readonly fields: Pick<
    ProfileDraft,
    'decimal' | 'negative' | 'fractions' | 'values' | 'when' | 'subtract' | 'duplicates'
  >;
  readonly notes: string[];
}

export interface RulesInput {
  readonly columns: readonly Column[];
  readonly data: readonly HeadRow[];
  readonly sku: Column;
  /** The quantity columns: one, or a spread's. */
  readonly quantities: readonly Column[];
  readonly location: Column | undefined;
  /** The reference a profile gives a column. */
  readonly ref: (c: Column) => DraftColumn;
  /** How the notes name a column. */
  readonly shown: (c: Column) => string;
  /** The table has no header: columns are known by position only. */
  readonly positional: boolean;
}

/** Status-like names about something else than the stock. */
const NOT_STATUS = ['tax', 'shipping', 'payment', 'order', 'tracking', 'delivery'];

export function guessRules(input: RulesInput): RulesGuess {
  const notes: string[] = [];
  const fields: RulesGuess['fields'] = {
    ...decimalMark(input, notes),
    ...quantityRules(input, notes),
    ...conditions(input, notes),
    ...reserved(input, notes),
    ...duplicateKeys(input, notes),
  };
  return { fields, notes };
}

function decimalMark({ columns, quantities, shown }: RulesInput, notes: string[]) {
  let comma = 0;
  let dot = 0;
  for (const c of columns) {
    if (!holdsQuantities(c.facts)) continue;
    comma += c.facts.commaMarks;
    dot += c.facts.dotMarks;
  }
  const ambiguous = quantities.reduce((n, c) => n + c.facts.ambiguous, 0);
  if (comma > dot) {
    notes.push(`Numbers are written with a decimal comma (${comma} such values): decimal ",".`);
    return { decimal: ',' as const };
  }
  if (comma === 0 && dot === 0 && ambiguous > 0) {
    notes.push(
      `Could not tell the decimal mark: ${shown(quantities[0]!)} holds values like "${quantities[0]!.facts.sample.find((s) => /[.,]\d{3}$/.test(s)) ?? ''}", which are thousands with "." as the decimal mark (the default) and fractions with ",".`,
    );
  }
  return {};
}

function quantityRules({ quantities, data, sku, shown }: RulesInput, notes: string[]) {
  const out: Pick<ProfileDraft, 'negative' | 'fractions' | 'values'> = {};
  const negatives = quantities.reduce((n, c) => n + c.facts.negatives, 0);
  if (negatives > 0) {
    out.negative = 'zero';
    notes.push(
      `${negatives} quantit${negatives === 1 ? 'y is' : 'ies are'} below 0 (oversold): offered as 0 (negative "zero"), or drop the field to reject them.`,
    );
  }
  const fractions = quantities.reduce((n, c) => n + c.facts.fractions, 0);
  if (fractions > 0) {
    out.fractions = 'floor';
    notes.push(
      `${fractions} quantit${fractions === 1 ? 'y has' : 'ies have'} a fraction (${quantities
        .flatMap((c) => c.facts.fractionSamples)
        .slice(0, 3)
        .join(', ')}): rounded down (fractions "floor"), never offering what is not there.`,
    );
  }
  const values: Record<string, number | 'keep'> = {};
  const unknown: string[] = [];
  for (const c of quantities) {
    for (const text of c.facts.texts.keys()) {
      const t = foldText(text);
      if (ZERO_TEXTS.includes(t)) values[text.trim().toLowerCase()] = 0;
      else if (UNKNOWN_TEXTS.includes(t)) values[text.trim().toLowerCase()] = 'keep';
      else unknown.push(text);
    }
  }
  const emptyWithSku = data.filter(
    (r) =>
      cellText(r.cells[sku.index]) !== '' &&
      quantities.some((c) => cellText(r.cells[c.index]) === ''),
  );
  if (emptyWithSku.length > 0) {
    values[''] = 'keep';
    notes.push(
      `${emptyWithSku.length} row(s) with a SKU have an empty quantity (line ${emptyWithSku[0]!.line}): kept as they are (values "" → "keep"); say 0 instead if an empty cell means none.`,
    );
  }
  for (const [text, v] of Object.entries(values)) {
    if (text !== '')
      notes.push(
        `Quantity text "${text}" is read as ${v === 'keep' ? 'not known (the key keeps its value)' : '0'}.`,
      );
  }
  if (unknown.length > 0) {
    notes.push(
      `Could not tell what the quantity text${unknown.length === 1 ? '' : 's'} ${unknown
        .slice(0, 5)
        .map((t) => `"${t}"`)
        .join(
          ', ',
        )} in ${shown(quantities[0]!)} mean${unknown.length === 1 ? 's' : ''}: give ${unknown.length === 1 ? 'it' : 'each'} a meaning in values, or those rows are rejected.`,
    );
  }
  if (Object.keys(values).length > 0) out.values = values;
  return out;
}

/** Row conditions: types that carry no stock of their own are skipped, status flags that say none are zeroed. */
function conditions(input: RulesInput, notes: string[]) {
  const { columns, sku, quantities, location, ref, shown, positional } = input;
  const when: DraftCondition[] = [];
  const taken = new Set([sku, ...quantities, location].filter((c) => c !== undefined));
  for (const c of columns) {
    if (taken.has(c) || c.facts.filled === 0 || c.facts.distinct > 12) continue;
    const values = [...c.facts.texts.keys(), ...c.facts.sample].map((v) => v.trim());
    const distinct = [...new Set(values.map((v) => v.toLowerCase()))];
    if (TYPE_TERMS.some((t) => nameFit(c.label, t) === 'whole')) {
      const parents = [...new Set(values.filter((v) => PARENT_TYPES.includes(foldText(v))))];
      if (parents.length > 0) {
        // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
        when.push({ column: ref(c), equals: parents, then: 'skip' });
        notes.push(
          `${shown(c)} names types that carry no stock of their own (${parents.join(', ')}): those rows are skipped.`,
        );
      } else if (distinct.length > 1) {
        notes.push(
          `${shown(c)} holds ${distinct.length} types (${distinct.slice(0, 6).join(', ')}): a when can skip those that carry no stock.`,
        );
      }
      continue;
    }
    if (!names(c.label, STATUS_TERMS) || names(c.label, NOT_STATUS)) {
      if (
        positional &&
        c.facts.texts.size >= 2 &&
        c.facts.texts.size <= 5 &&
        c.facts.distinct < c.facts.filled
      ) {
        notes.push(
          `${shown(c)} takes a few values (${[...c.facts.texts.keys()].join(', ')}): if some of them are rows to leave out, a when can skip them.`,
        );
      }
      continue;
    }
    const zeroes = statusZeroes(c, distinct, values);
    if (zeroes.length > 0) {
      // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
      when.push({ column: ref(c), equals: zeroes, then: 'zero' });
      notes.push(
        `${shown(c)} = ${zeroes.join(' | ')} means nothing to sell: those rows are offered as 0.`,
      );
    } else if (distinct.length > 1) {
      notes.push(
        `${shown(c)} holds ${distinct.slice(0, 6).join(', ')}: a when can zero or skip rows by it; none was added.`,
      );
    }
  }
  return when.length > 0 ? { when } : {};
}

/** Each flag value with its opposite (a column that shows only `1` says `0` when it is off). */
const OPPOSITE: Readonly<Record<string, string>> = {
  '1': '0',
  '0': '1',
  yes: 'no',
  no: 'yes',
  y: 'n',
  n: 'y',
  true: 'false',
  false: 'true',
  ja: 'nein',
  nein: 'ja',
};
const TRUTHY = new Set(['1', 'yes', 'y', 'true', 'ja', 'x', 'si']);

/** The values of a status column that mean nothing can be sold. */
function statusZeroes(c: Column, distinct: readonly string[], values: readonly string[]): string[] {
  if (c.facts.flags === c.facts.filled && distinct.length <= 2) {
    // A flag that says "discontinued" is set when nothing is sold; the others are cleared then.
    const offWhenSet = nameFit(c.label, 'discontinued') !== undefined;
    const out = new Set<string>();
    for (const v of distinct) {
      const set = TRUTHY.has(v);
      if (set === offWhenSet) out.add(v);
      else if (OPPOSITE[v] !== undefined) out.add(OPPOSITE[v]!);
    }
    return [...out];
  }
  return [...new Set(values.filter((v) => ZERO_STATUSES.includes(foldText(v))))];
}

/** On hand less what is reserved, when the quantity is on hand and a reserved figure is beside it. */
function reserved({ columns, quantities, ref, shown }: RulesInput, notes: string[]) {
  if (quantities.length !== 1) return {};
  const q = quantities[0]!;
  if (isAvailable(q.label)) return {}; // already what can be sold
  const r = columns.find(
    (c) => c !== q && holdsQuantities(c.facts) && names(c.label, RESERVED_TERMS),
  );
  if (r === undefined) return {};
  notes.push(`${shown(r)} is taken off ${shown(q)} (available = on hand − reserved).`);
  return { subtract: [ref(r)] };
}

/**
 * Rows naming one key again: parts of its stock (lots, bins, places the profile does not read)
 * add up — also when the head shows each key once, a lot column says rows are lots; copies (one
 * row per price tier, the same quantity each time) do not; rows in other units cannot.
 */
function duplicateKeys(
  { data, sku, quantities, location, columns, shown }: RulesInput,
  notes: string[],
) {
  const seen = new Map<string, HeadRow[]>();
  for (const row of data) {
    if (cellText(row.cells[sku.index]) === '') continue;
    const key = `${location ? cellText(row.cells[location.index]) : ''}\u0000${cellText(row.cells[sku.index])}`;
    seen.set(key, [...(seen.get(key) ?? []), row]);
  }
  const repeated = [...seen.values()].filter((rows) => rows.length > 1);
  const parts = columns.find(
    (c) =>
      c.facts.distinct > 1 &&
      (names(c.label, LOT_TERMS) || (names(c.label, ['bin', 'location']) && c !== location)),
  );
  const units = columns.find((c) => names(c.label, UNIT_TERMS) && c.facts.texts.size > 1);
  const q = quantities[0];
  const differ =
    q !== undefined &&
    repeated.some((rows) => new Set(rows.map((r) => cellText(r.cells[q.index]))).size > 1);
  const first = repeated[0];
  const example = first
    ? ` (${cellText(first[0]!.cells[sku.index])}: lines ${first.map((r) => r.line).join(', ')})`
    : '';
  const mixed =
    units !== undefined &&
    repeated.some((rows) => new Set(rows.map((r) => cellText(r.cells[units.index]))).size > 1);
  if (mixed) {
    notes.push(
      `${repeated.length} key(s) come on more than one row${example}, in different units (${shown(units!)}): they are not added up; the last row wins unless a when keeps one unit.`,
    );
    return {};
  }
  if (parts !== undefined && (repeated.length > 0 || names(parts.label, LOT_TERMS))) {
    notes.push(
      `${repeated.length > 0 ? `${repeated.length} key(s) come on more than one row${example}` : 'Each row is one lot'}, one per ${shown(parts)}: the quantities of a key are added up (duplicates "sum").`,
    );
    return { duplicates: 'sum' as const };
  }
  if (repeated.length === 0) return {};
  if (differ) {
    notes.push(
      `${repeated.length} key(s) come on more than one row with different quantities${example}: they are added up (duplicates "sum"); use the default (the last row wins) if a later row replaces an earlier one.`,
    );
    return { duplicates: 'sum' as const };
  }
  notes.push(
    `${repeated.length} key(s) come on more than one row with the same quantity${example}: the last row wins (the default); say duplicates "sum" if each row is a part of the stock.`,
  );
  return {};
}
