import type { Environment } from '@marcbachmann/cel-js';
import { dateOf, matchesRe2, type NumberReader, numberOf, replaceAll } from './celFunctions.ts';
import { celLibrary } from './celLibrary.ts';

/**
 * The CEL environment a profile's expressions are checked and run in: CEL's standard functions
 * and macros (@marcbachmann/cel-js), the strings-extension functions it lacks, the project's
 * globals, and the slots the compiler reads cells through (exprCompile.ts). One environment per
 * way of reading numbers (a profile's decimal mark; the profiles file's check, which runs
 * nothing), built once, when first needed.
 */

/** Names only the compiler gives: an expression that spells one is refused. */
export const SLOT_PREFIX = '__sync_';
/** The value of the n-th cell an expression reads (`row['X']`, `cell.B`, `col[2]`): text. */
export const valueSlot = (n: number) => `${SLOT_PREFIX}v${n}`;
/** Whether the n-th column an expression asks `has()` of is in the file: bool. */
export const presenceSlot = (n: number) => `${SLOT_PREFIX}h${n}`;
/** `today()`: the date the file is read on. */
export const TODAY_SLOT = `${SLOT_PREFIX}today`;
/** `matches` runs as RE2 under this name (the library's own is JavaScript's RegExp). */
export const RE2_MATCHES = `${SLOT_PREFIX}matches`;

/** Most cells, and most `has()` columns, that one expression may read. */
export const MAX_SLOTS = 64;

const TIMESTAMP = 'google.protobuf.Timestamp';

const environments = new Map<NumberReader, Environment>();

/** Reads no number: for checking expressions, which runs none. */
export const CHECK_ONLY: NumberReader = () => 'not run when checking';

export function celEnvironment(readNumber: NumberReader): Environment {
  let env = environments.get(readNumber);
  if (env === undefined) {
    env = build(readNumber);
    environments.set(readNumber, env);
  }
  return env;
}

function build(readNumber: NumberReader): Environment {
  const env = new (celLibrary().Environment)({
    homogeneousAggregateLiterals: false,
    limits: {
      maxAstNodes: 2000,
      maxDepth: 64,
      maxListElements: 1000,
      maxMapEntries: 1000,
      maxCallArguments: 16,
    },
  });
  for (let i = 0; i < MAX_SLOTS; i++) {
    env.registerVariable(valueSlot(i), 'string');
    env.registerVariable(presenceSlot(i), 'bool');
  }
  env.registerVariable(TODAY_SLOT, TIMESTAMP);
  // Checked as a call; the compiler puts the file's date in its place.
  env.registerFunction(`today(): ${TIMESTAMP}`, () => {
    throw new Error('today() is read from the file, never called');
  });
  env.registerFunction('string.replace(string, string): string', replaceAll);
  env.registerFunction(`string.${RE2_MATCHES}(string): bool`, matchesRe2);
  env.registerFunction(`${RE2_MATCHES}(string, string): bool`, matchesRe2);
  env.registerFunction('number(string): double', (text: string) => numberOf(text, readNumber));
  env.registerFunction('number(int): double', (n: bigint) => Number(n));
  env.registerFunction('number(double): double', (n: number) => n);
  env.registerFunction(`date(string, string): ${TIMESTAMP}`, dateOf);
  for (const type of ['int', 'double', 'string', TIMESTAMP]) {
    env.registerFunction(`min(${type}, ${type}): ${type}`, <T>(a: T, b: T) => (b < a ? b : a));
    env.registerFunction(`max(${type}, ${type}): ${type}`, <T>(a: T, b: T) => (b > a ? b : a));
  }
  return env;
}
