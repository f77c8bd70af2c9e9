import { presenceSlot, TODAY_SLOT, valueSlot } from '../../config/expr/celEnvironment.ts';
import type { NumberReader } from '../../config/expr/celFunctions.ts';
import {
  type CompiledExpr,
  compileExpr,
  type ExprColumn,
  type ExprRole,
} from '../../config/expr/exprCompile.ts';
import { fieldGives } from '../../config/profileColumns.ts';
import type { ColumnRef } from './headerKeys.ts';
import { parseNumber } from './quantity.ts';
import type { RowError } from './rows.ts';

/**
 * A profile's expressions (product contract, "Any export"), compiled once per profile and bound
 * once per file to the keys its header gives the columns they read; then run per row on the
 * row's fields. A row's expression that fails gives a RowError whose reason names the field or
 * condition and what failed, never a cell's text.
 */
export interface ProfileExprs {
  /** Fields computed by expressions, in the profile's order. */
  readonly fields: ReadonlyArray<{ readonly field: string; readonly expr: CompiledExpr }>;
  /** `when[i].if`, by i. */
  readonly conditions: ReadonlyMap<number, CompiledExpr>;
  /** Every column an expression reads or asks `has()` of. */
  readonly reads: readonly ColumnRef[];
}

interface ExprProfile {
  readonly decimal: '.' | ',';
  readonly columns: Readonly<Record<string, unknown>>;
  readonly when: ReadonlyArray<{ readonly if: string } | object>;
}

/** `number()` as each decimal mark reads (one function each: the environment is kept per reader). */
const READERS: Readonly<Record<'.' | ',', NumberReader>> = {
  '.': (text) => parseNumber(text, { decimal: '.' }),
  ',': (text) => parseNumber(text, { decimal: ',' }),
};

const compiled = new WeakMap<object, ProfileExprs | undefined>();

/** The profile's expressions compiled (once per profile object), or undefined when it has none. */
export function profileExprs(profile: ExprProfile): ProfileExprs | undefined {
  if (compiled.has(profile)) return compiled.get(profile);
  const fields: Array<{ field: string; expr: CompiledExpr }> = [];
  const conditions = new Map<number, CompiledExpr>();
  const compile = (text: string, role: ExprRole, where: string) => {
    const r = compileExpr(text, role, READERS[profile.decimal]);
    // The profiles file was checked when it was read: this is a fault of the program.
    if (!r.ok) throw new Error(`${where}: ${r.problem}`);
    return r.expr;
  };
  for (const [field, source] of Object.entries(profile.columns)) {
    if (source !== null && typeof source === 'object' && 'expr' in source) {
      const text = String(source.expr);
      fields.push({ field, expr: compile(text, fieldGives(field), `columns.${field}`) });
    }
  }
  profile.when.forEach((c, i) => {
    if ('if' in c) conditions.set(i, compile(c.if, 'condition', `when[${i}]`));
  });
  const all = [...fields.map((f) => f.expr), ...conditions.values()];
  const result =
    all.length === 0
      ? undefined
      : { fields, conditions, reads: all.flatMap((e) => [...e.reads, ...e.asks].map(refOf)) };
  compiled.set(profile, result);
  return result;
}

/** An expression's column as a profile's column reference. */
export function refOf(column: ExprColumn): ColumnRef {
  if (column.by === 'name') return column.name;
  if (column.by === 'letter') return { letter: column.letter };
  return column.position;
}

/** One expression bound to a file: the keys of the cells it reads, one reused context. */
class BoundExpr {
  readonly #expr: CompiledExpr;
  readonly #reads: ReadonlyArray<string | undefined>;
  readonly #asks: ReadonlyArray<string | undefined>;
  readonly #slots: readonly string[];
  readonly #askSlots: readonly string[];
  readonly #context: Record<string, unknown>;

  constructor(expr: CompiledExpr, keyOf: (ref: ColumnRef) => string | undefined, today: Date) {
    this.#expr = expr;
    this.#reads = expr.reads.map((c) => keyOf(refOf(c)));
    this.#asks = expr.asks.map((c) => keyOf(refOf(c)));
    this.#slots = expr.reads.map((_, i) => valueSlot(i));
    this.#askSlots = expr.asks.map((_, i) => presenceSlot(i));
    this.#context = { [TODAY_SLOT]: today };
  }

  run(fields: Readonly<Record<string, unknown>>): unknown {
    const context = this.#context;
    for (let i = 0; i < this.#slots.length; i++) {
      const key = this.#reads[i];
      context[this.#slots[i]!] = key === undefined ? '' : cellText(fields[key]);
    }
    for (let i = 0; i < this.#askSlots.length; i++) {
      const key = this.#asks[i];
      context[this.#askSlots[i]!] = key !== undefined && fields[key] !== undefined;
    }
    return this.#expr.run(context);
  }
}

/** A cell as an expression reads it: its text; empty or missing, `''`. */
function cellText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return String(value);
}

/** A profile's expressions bound to one file. */
export interface BoundExprs {
  /** `when[i].if` on a row: whether it holds, or why it could not be told. */
  condition(i: number, fields: Readonly<Record<string, unknown>>): boolean | RowError;
  /** Sets the computed fields on a row (in place), or says which failed and why. */
  compute(fields: Record<string, unknown>): RowError | undefined;
}

export function bindExprs(
  exprs: ProfileExprs,
  keyOf: (ref: ColumnRef) => string | undefined,
  today: Date,
): BoundExprs {
  const fields = exprs.fields.map((f) => ({
    field: f.field,
    role: f.expr.role,
    bound: new BoundExpr(f.expr, keyOf, today),
  }));
  const conditions = new Map(
    [...exprs.conditions].map(([i, e]) => [i, new BoundExpr(e, keyOf, today)]),
  );
  const values: unknown[] = [];
  return {
    condition(i, row) {
      let value: unknown;
      try {
        value = conditions.get(i)!.run(row);
      } catch (err) {
        return failure('(row)', `the condition when[${i}]`, err);
      }
      if (typeof value === 'boolean') return value;
      return { field: '(row)', reason: `the condition when[${i}] gave no true or false` };
    },
    compute(row) {
      // Every expression reads the row as the file has it, then the fields are set: on a
      // failure, those computed before it (a good SKU still names the row's key).
      let failed: RowError | undefined;
      let done = 0;
      for (; done < fields.length; done++) {
        const f = fields[done]!;
        let value: unknown;
        try {
          value = f.bound.run(row);
        } catch (err) {
          failed = failure(f.field, `the expression for ${f.field}`, err);
          break;
        }
        values[done] = asField(value, f.role);
        if (values[done] === undefined) {
          failed = {
            field: f.field,
            reason: `the expression for ${f.field} gave ${typeName(value)}`,
          };
          break;
        }
      }
      for (let i = 0; i < done; i++) row[fields[i]!.field] = values[i];
      return failed;
    },
  };
}

/** An expression's value as a field holds it (a CEL int as a number), or undefined when the role takes no such value. */
function asField(value: unknown, role: ExprRole): unknown {
  if (typeof value === 'string') return value;
  if (role === 'quantity' && typeof value === 'bigint') return Number(value);
  if (role === 'quantity' && typeof value === 'number') return value;
  if (role === 'flag' && typeof value === 'boolean') return value;
  return undefined;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'bigint') return 'a whole number';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'true or false';
  return Array.isArray(value) ? 'a list' : 'a value of another type';
}

/** Codes of the failures this project's functions raise: their messages quote no cell. */
const OWN_CODES = new Set([
  'number_unreadable',
  'date_unreadable',
  'date_layout',
  'invalid_regular_expression',
]);

/** Why an expression failed on a row: where, and what — the CEL error's code, not its text. */
function failure(field: string, what: string, err: unknown): RowError {
  const e = err as { code?: unknown; summary?: unknown; range?: { start: number } };
  // Whatever failed, only this row is lost: its reason is a code, never the error's text.
  const code = typeof e.code === 'string' ? e.code : 'evaluation_error';
  const detail = OWN_CODES.has(code) ? String(e.summary) : code.replaceAll('_', ' ');
  const at = e.range === undefined ? '' : ` at character ${e.range.start + 1}`;
  return { field, reason: `${what} failed${at}: ${detail}` };
}
