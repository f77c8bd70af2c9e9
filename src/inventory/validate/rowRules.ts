import { showValue } from '../parse/records.ts';
import { type ColumnRef, describeRef } from './headerKeys.ts';
import { MAX_QUANTITY, parseNumber, type QuantityOptions } from './quantity.ts';
import type { BoundExprs } from './rowExprs.ts';
import type { RowError } from './rows.ts';

/**
 * What a profile says of stock rows beyond their columns (product contract, "ERP exports as they
 * come" and "Any export"): row conditions (`when`, a column's texts or a CEL condition), fields
 * computed by expressions, quantity texts (`values`), columns taken off the quantity
 * (`subtract`), and one DC row per quantity column of a wide export (`spread`). Pure: fields in,
 * a verdict out. Columns are given as the keys the rows carry them under (keyHeader).
 */
export interface RowRules {
  /** Quantity text (trimmed, lower case) → what it means. */
  readonly values: ReadonlyMap<string, number | 'skip' | 'keep'>;
  readonly when: ReadonlyArray<{
    /** The column looked at (`column`/`equals`), with its trimmed, lower-case texts that match. */
    readonly key?: string | undefined;
    readonly equals?: ReadonlySet<string>;
    /** A CEL condition (`if`): whether it holds, or why it could not be told. */
    readonly test?: (fields: Readonly<Record<string, unknown>>) => boolean | RowError;
    readonly action: 'skip' | 'keep' | 'zero' | 'reject';
    /** `reject`: the reason the report gives. */
    readonly reason: string;
  }>;
  /** Sets the fields the profile computes (in place); a RowError when one fails. */
  readonly compute?: ((fields: Record<string, unknown>) => RowError | undefined) | undefined;
  readonly subtract: readonly string[];
  /** Quantity column key → the centre (or ERP location) its values are for. */
  readonly spread: ReadonlyArray<{ readonly key: string; readonly dc: string }>;
}

/** What the rules make of a row. */
export type RowVerdict =
  /** Read as a stock row, with these fields (the quantity may be replaced). */
  | { readonly action: 'row'; readonly fields: Record<string, unknown> }
  /** Left out, as if it were not in the file (counted as skipped). */
  | { readonly action: 'skip' }
  /** Its key counts as named and keeps its current value (counted as kept). */
  | { readonly action: 'keep'; readonly fields?: Record<string, unknown> }
  /** A value the rules needed is bad, or a condition rejects it: the row is rejected. */
  | { readonly action: 'bad'; readonly error: RowError; readonly fields?: Record<string, unknown> };

export interface ProfileRules {
  readonly values: Readonly<Record<string, number | 'skip' | 'keep'>>;
  readonly when: ReadonlyArray<
    | {
        readonly column: ColumnRef;
        readonly equals: ReadonlyArray<string | number>;
        readonly then: 'skip' | 'keep' | 'zero' | 'reject';
        readonly reason?: string | undefined;
      }
    | {
        readonly if: string;
        readonly then: 'skip' | 'keep' | 'zero' | 'reject';
        readonly reason?: string | undefined;
      }
  >;
  readonly subtract: ReadonlyArray<ColumnRef>;
  readonly spread: Readonly<Record<string, string>>;
}

/**
 * A profile's rules, its columns turned into the keys rows carry them under (`key`: the file's
 * header as the profile maps it) and its expressions bound to the file (`exprs`); undefined when
 * the profile sets none (the common case costs nothing a row).
 */
export function rowRulesOf(
  profile: ProfileRules,
  key: (column: ColumnRef) => string | undefined,
  exprs?: BoundExprs,
): RowRules | undefined {
  const keyOf = (column: ColumnRef) => key(column) ?? ` ${describeRef(column)}`;
  const rules: RowRules = {
    values: new Map(
      Object.entries(profile.values).map(([text, v]) => [text.trim().toLowerCase(), v]),
    ),
    when: profile.when.map((c, i) =>
      'if' in c
        ? {
            test: (fields: Readonly<Record<string, unknown>>) =>
              exprs === undefined ? false : exprs.condition(i, fields),
            action: c.then,
            reason: c.reason ?? c.if,
          }
        : {
            key: keyOf(c.column),
            equals: new Set(c.equals.map((v) => String(v).trim().toLowerCase())),
            action: c.then,
            reason: c.reason ?? `${describeRef(c.column)} is ${c.equals.join(' | ')}`,
          },
    ),
    compute: exprs === undefined ? undefined : (fields) => exprs.compute(fields),
    subtract: profile.subtract.map(keyOf),
    spread: Object.entries(profile.spread).map(([column, dc]) => ({ key: keyOf(column), dc })),
  };
  const none =
    rules.values.size === 0 &&
    rules.when.length === 0 &&
    rules.subtract.length === 0 &&
    rules.spread.length === 0 &&
    exprs === undefined;
  return none ? undefined : rules;
}

/** A cell as the rules compare it: trimmed, lower case; an absent cell is empty. */
const text = (value: unknown): string =>
  value === undefined || value === null ? '' : String(value).trim().toLowerCase();

/**
 * The rows a row of a wide export stands for: one per `spread` column, each with that column's
 * value as its quantity at that column's centre. Without `spread`, the row itself.
 */
export function spreadRow(
  fields: Record<string, unknown>,
  rules: RowRules | undefined,
): Array<Record<string, unknown>> {
  if (rules === undefined || rules.spread.length === 0) return [fields];
  return rules.spread.map((s) => ({
    ...fields,
    distribution_centre_code: s.dc,
    stock_quantity: fields[s.key],
  }));
}

/**
 * The rules applied to one stock row, in the contract's order: the first `when` condition that
 * matches decides (skip, keep, or an out-of-stock flag: zero); else a `values` entry for the
 * quantity text decides (a number replaces it; skip; keep); else `subtract` takes its columns off
 * the quantity (an empty cell counts as 0; the difference is then checked as a quantity, its
 * fraction and sign as the profile says).
 */
export function applyRowRules(
  fields: Record<string, unknown>,
  rules: RowRules,
  quantity: QuantityOptions,
): RowVerdict {
  let decided: RowRules['when'][number] | undefined;
  for (const c of rules.when) {
    const holds = c.test === undefined ? c.equals!.has(text(fields[c.key!])) : c.test(fields);
    if (holds === false) continue;
    if (holds !== true) return { action: 'bad', error: holds };
    decided = c;
    break;
  }
  if (decided?.action === 'skip') return { action: 'skip' };
  // Computed in place: the row's object is its own (a reader's record, or a spread copy), and
  // the expressions read every cell before a field is set.
  if (rules.compute !== undefined) {
    const failed = rules.compute(fields);
    if (failed !== undefined) return { action: 'bad', error: failed, fields };
  }
  // The fields computed, for the verdicts that name the row's key.
  const computed = rules.compute === undefined ? {} : { fields };
  if (decided !== undefined) {
    if (decided.action === 'zero')
      return { action: 'row', fields: { ...fields, stock_quantity: 0 } };
    if (decided.action === 'keep') return { action: 'keep', ...computed };
    return { action: 'bad', error: { field: '(row)', reason: decided.reason }, ...computed };
  }
  if (rules.values.size > 0) {
    const meaning = rules.values.get(text(fields.stock_quantity));
    if (typeof meaning === 'number') {
      return { action: 'row', fields: { ...fields, stock_quantity: meaning } };
    }
    if (meaning !== undefined) return { action: meaning, ...computed };
  }
  if (rules.subtract.length === 0) return { action: 'row', fields };
  let q = parseNumber(fields.stock_quantity, quantity);
  if (typeof q === 'string') return bad('stock_quantity', q, fields.stock_quantity, computed);
  for (const key of rules.subtract) {
    const value = fields[key];
    if (text(value) === '') continue;
    const n = parseNumber(value, quantity);
    if (typeof n === 'string') return bad(key, n, value, computed);
    q -= n;
  }
  return { action: 'row', fields: { ...fields, stock_quantity: Math.max(q, -MAX_QUANTITY - 1) } };
}

function bad(
  field: string,
  reason: string,
  value: unknown,
  computed: { fields?: Record<string, unknown> },
): RowVerdict {
  const shown = showValue(value);
  return {
    action: 'bad',
    error: shown === undefined ? { field, reason } : { field, reason, value: shown },
    ...computed,
  };
}
