import type { Environment, ParseResult } from '@marcbachmann/cel-js';
import { MAX_COLUMN } from '../profileColumns.ts';
import {
  celEnvironment,
  MAX_SLOTS,
  presenceSlot,
  RE2_MATCHES,
  SLOT_PREFIX,
  TODAY_SLOT,
  valueSlot,
} from './celEnvironment.ts';
import { type NumberReader, re2Of } from './celFunctions.ts';

/**
 * A profile's expression compiled once, when the profiles file is read: parsed and type-checked
 * in CEL, with every cell it reads (`row['Qty']`, `cell.BM`, `col[3]`) turned into a slot of one
 * reused context object, so that a row costs the cells it reads and no map of the row. A cell
 * the file lacks reads as `''`; `has(row['X'])` is whether the file has the column, set once per
 * file; `today()` is the file's date. What is wrong is told with its position (`1:12`).
 */

/** A column as an expression names it. */
export type ExprColumn =
  | { readonly by: 'name'; readonly name: string }
  | { readonly by: 'letter'; readonly letter: string }
  | { readonly by: 'position'; readonly position: number };

/** What an expression stands for, and so the types it may give. */
export type ExprRole = 'text' | 'quantity' | 'flag' | 'condition';

export interface CompiledExpr {
  readonly text: string;
  readonly role: ExprRole;
  /** The cells read, slot i holding column i's text. */
  readonly reads: readonly ExprColumn[];
  /** The columns `has()` asks of, slot i true when the file has column i. */
  readonly asks: readonly ExprColumn[];
  /** The expression as CEL runs it, given the context of slots. */
  readonly run: (context: Record<string, unknown>) => unknown;
}

export type CompileResult =
  | { readonly ok: true; readonly expr: CompiledExpr }
  | { readonly ok: false; readonly problem: string };

const ROLE_TYPES: Readonly<Record<ExprRole, ReadonlySet<string>>> = {
  text: new Set(['string', 'dyn']),
  quantity: new Set(['int', 'double', 'string', 'dyn']),
  flag: new Set(['bool', 'string', 'dyn']),
  condition: new Set(['bool', 'dyn']),
};

const ROLE_NEEDS: Readonly<Record<ExprRole, string>> = {
  text: 'text (string)',
  quantity: 'a number or text',
  flag: 'true/false (bool) or text',
  condition: 'true or false (bool)',
};

/** The variables an expression reads cells through. */
const CELL_VARIABLES = new Set(['row', 'cell', 'col']);

/** One AST node as the library builds it (its own type is not exported whole). */
interface Node {
  readonly op: string;
  args: unknown;
  readonly start: number;
  readonly end: number;
  setMeta(key: string, value: unknown): Node;
}

const isNode = (x: unknown): x is Node =>
  x !== null && typeof x === 'object' && typeof (x as Node).op === 'string';

/** A problem at a place in the expression. */
class Misplaced extends Error {
  readonly at: number;
  constructor(at: number, message: string) {
    super(message);
    this.at = at;
  }
}

/**
 * Compiles an expression for a role. `readNumber`: how `number()` reads text (the profile's
 * decimal mark); CHECK_ONLY for a check that runs nothing.
 */
export function compileExpr(text: string, role: ExprRole, readNumber: NumberReader): CompileResult {
  const env = celEnvironment(readNumber);
  let parsed: ParseResult;
  try {
    parsed = env.parse(text);
  } catch (err) {
    return problem(text, err);
  }
  const reads: ExprColumn[] = [];
  const asks: ExprColumn[] = [];
  try {
    rewrite(parsed.ast as unknown as Node, env, reads, asks);
  } catch (err) {
    return problem(text, err);
  }
  const checked = parsed.check();
  if (!checked.valid) return problem(text, checked.error);
  const type = checked.type ?? 'dyn';
  if (!ROLE_TYPES[role].has(type)) {
    return {
      ok: false,
      problem: `at 1:1: gives ${type}, and this needs ${ROLE_NEEDS[role]}`,
    };
  }
  const run = parsed as unknown as (context: Record<string, unknown>) => unknown;
  return { ok: true, expr: { text, role, reads, asks, run } };
}

/**
 * Walks the tree: cell reads and `has()` become slots, `today()` the file's date, `matches` the
 * RE2 one; a name only the compiler gives, or a cell variable read any other way, is refused.
 */
function rewrite(node: Node, env: Environment, reads: ExprColumn[], asks: ExprColumn[]): void {
  const column = cellRead(node);
  if (column !== undefined) {
    node.setMeta('alternate', slotNode(env, valueSlot(slotOf(reads, column, node))));
    return;
  }
  if (node.op === 'call' && Array.isArray(node.args)) {
    const [name, args] = node.args as [string, unknown[]];
    if (name === 'has' && args.length === 1 && isNode(args[0])) {
      const asked = cellRead(args[0]);
      if (asked !== undefined) {
        node.setMeta('alternate', slotNode(env, presenceSlot(slotOf(asks, asked, node))));
        return;
      }
    }
    if (name === 'today' && args.length === 0) {
      node.setMeta('alternate', slotNode(env, TODAY_SLOT));
      return;
    }
  }
  if ((node.op === 'call' || node.op === 'rcall') && Array.isArray(node.args)) {
    if (node.args[0] === 'matches') {
      node.args[0] = RE2_MATCHES;
      checkPattern(node);
    }
  }
  if (node.op === 'id') {
    const name = String(node.args);
    if (CELL_VARIABLES.has(name)) {
      throw new Misplaced(
        node.start,
        `${name} is read with a constant: row['Qty'] (a header name), cell.BM (a column letter) or col[3] (a position)`,
      );
    }
    if (name.startsWith(SLOT_PREFIX)) {
      throw new Misplaced(node.start, `unknown variable ${name}`);
    }
    return;
  }
  visit(node.args, (child) => rewrite(child, env, reads, asks));
}

/** Calls `f` on every node in a node's arguments (arrays and objects of them, at any depth). */
function visit(args: unknown, f: (node: Node) => void): void {
  if (isNode(args)) f(args);
  else if (Array.isArray(args)) for (const a of args) visit(a, f);
  else if (args !== null && typeof args === 'object' && !(args instanceof Uint8Array)) {
    for (const a of Object.values(args)) visit(a, f);
  }
}

/** The column a node reads, when it is `row['X']`, `row.X`, `cell.BM`, `cell['BM']` or `col[3]`. */
function cellRead(node: Node): ExprColumn | undefined {
  if ((node.op !== '[]' && node.op !== '.') || !Array.isArray(node.args)) return undefined;
  const [target, key] = node.args as [unknown, unknown];
  if (!isNode(target) || target.op !== 'id' || !CELL_VARIABLES.has(String(target.args))) {
    return undefined;
  }
  const variable = String(target.args);
  const constant = isNode(key) ? (key.op === 'value' ? key.args : undefined) : key;
  if (variable === 'row') {
    if (typeof constant === 'string') return { by: 'name', name: constant };
    throw new Misplaced(node.start, "row is read by a header name in quotes: row['Qty']");
  }
  if (variable === 'cell') {
    if (typeof constant === 'string' && /^[A-Za-z]{1,3}$/.test(constant)) {
      const letter = constant.toUpperCase();
      if (letterIndex(letter) < MAX_COLUMN) return { by: 'letter', letter };
    }
    throw new Misplaced(node.start, 'cell is read by a column letter, A to XFD: cell.BM');
  }
  if (typeof constant === 'bigint' && constant >= 1n && constant <= BigInt(MAX_COLUMN)) {
    return { by: 'position', position: Number(constant) };
  }
  throw new Misplaced(node.start, 'col is read by a 1-based position: col[3]');
}

/** The 0-based index of column letters (`A` → 0, `BM` → 64). */
export function letterIndex(letter: string): number {
  let n = 0;
  for (const c of letter.toUpperCase()) n = n * 26 + (c.charCodeAt(0) - 64);
  return n - 1;
}

function slotOf(slots: ExprColumn[], column: ExprColumn, node: Node): number {
  const same = slots.findIndex((s) => JSON.stringify(s) === JSON.stringify(column));
  if (same !== -1) return same;
  if (slots.length >= MAX_SLOTS) {
    throw new Misplaced(node.start, `reads more than ${MAX_SLOTS} columns`);
  }
  slots.push(column);
  return slots.length - 1;
}

function slotNode(env: Environment, name: string): Node {
  return env.parse(name).ast as unknown as Node;
}

/** A `matches` pattern written as a constant is checked as RE2 here, not on the first row. */
function checkPattern(node: Node): void {
  const args = node.args as unknown[];
  const pattern = node.op === 'rcall' ? (args[2] as unknown[])[0] : (args[1] as unknown[])[1];
  if (!isNode(pattern) || pattern.op !== 'value' || typeof pattern.args !== 'string') return;
  const re = re2Of(pattern.args);
  if (typeof re === 'string') {
    throw new Misplaced(pattern.start, `matches() pattern is not RE2 syntax: ${re}`);
  }
}

/** A compile error as one line: `at LINE:COLUMN: what`, names the compiler gives put back. */
function problem(text: string, err: unknown): CompileResult {
  const e = err as { summary?: unknown; message?: unknown; range?: { start: number }; at?: number };
  const at = err instanceof Misplaced ? err.at : (e.range?.start ?? 0);
  const what = String(e.summary ?? e.message ?? err)
    .split('\n')[0]!
    .replaceAll(RE2_MATCHES, 'matches');
  return { ok: false, problem: `at ${place(text, at)}: ${what}` };
}

/** A 0-based offset as `line:column`, both 1-based. */
function place(text: string, at: number): string {
  const before = text.slice(0, at).split('\n');
  return `${before.length}:${before.at(-1)!.length + 1}`;
}
