import type { RE2JS } from '@bufbuild/re2';
import type { EvaluationError } from '@marcbachmann/cel-js';
import { celLibrary, re2Library } from './celLibrary.ts';

/**
 * The functions a profile's expressions have beyond CEL's own (product contract, "Any export:
 * expressions and spreadsheet layouts"): `number(text)`, `date(text, layout)`, `min`, `max`,
 * `replace`, and `matches` in RE2 syntax. Pure: text in, a value or an EvaluationError out.
 * An error's message never holds the text it was given (a cell may hold anything): the reason
 * a row is rejected for names the function and what it expected.
 */

/** A failure of one row's expression: a code and a message that quotes no cell. */
function rowFailure(code: string, message: string): EvaluationError {
  const { EvaluationError: Failure } = celLibrary();
  return new Failure({ code, message });
}

/**
 * How `number(text)` reads text: a quantity's number as the profile reads one (its decimal mark),
 * sign and fraction kept; the reason when it cannot. Given by the reader of files, which owns the
 * quantity rules.
 */
export type NumberReader = (text: string) => number | string;

/** `number(text)` with a reader: the number, or the row's failure. */
export function numberOf(text: string, read: NumberReader): number {
  const n = read(text);
  if (typeof n === 'string') {
    throw rowFailure('number_unreadable', `number() cannot read the text as a number (${n})`);
  }
  return n;
}

/** A date layout turned into a reader: YYYY, MM, DD, HH, mm tokens; anything else is literal. */
interface DateLayout {
  readonly pattern: RegExp;
  /** For each capture group, the token it holds. */
  readonly tokens: readonly string[];
}

const TOKEN = /YYYY|MM|DD|HH|mm/g;
const TOKEN_PATTERN: Readonly<Record<string, string>> = {
  YYYY: '(\\d{4})',
  MM: '(\\d{1,2})',
  DD: '(\\d{1,2})',
  HH: '(\\d{1,2})',
  mm: '(\\d{2})',
};

/** Layouts read so far (a profile has a few; bounded all the same). */
const layouts = new Map<string, DateLayout>();
const MAX_LAYOUTS = 256;

function layoutOf(layout: string): DateLayout {
  let compiled = layouts.get(layout);
  if (compiled !== undefined) return compiled;
  const tokens: string[] = [];
  let pattern = '';
  let at = 0;
  for (const m of layout.matchAll(TOKEN)) {
    pattern += escapeRegExp(layout.slice(at, m.index)) + TOKEN_PATTERN[m[0]];
    tokens.push(m[0]);
    at = m.index + m[0].length;
  }
  pattern += escapeRegExp(layout.slice(at));
  if (!tokens.includes('YYYY') || !tokens.includes('MM') || !tokens.includes('DD')) {
    throw rowFailure('date_layout', `date() layout "${layout}" lacks one of YYYY, MM and DD`);
  }
  compiled = { pattern: new RegExp(`^${pattern}$`), tokens };
  if (layouts.size >= MAX_LAYOUTS) layouts.clear();
  layouts.set(layout, compiled);
  return compiled;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `date(text, layout)`: the date (and time of day) the text writes, as a timestamp on the UTC
 * clock face — `today()` is one too, so dates compare with `<` whatever the time zone. Month and
 * day may have one digit (`3/7/2025`); the text is trimmed.
 */
export function dateOf(text: string, layout: string): Date {
  const { pattern, tokens } = layoutOf(layout);
  const m = pattern.exec(text.trim());
  const fail = () => rowFailure('date_unreadable', `date() text does not fit the layout ${layout}`);
  if (m === null) throw fail();
  const parts: Record<string, number> = { YYYY: 0, MM: 1, DD: 1, HH: 0, mm: 0 };
  tokens.forEach((t, i) => {
    parts[t] = Number(m[i + 1]);
  });
  const { YYYY: y, MM: month, DD: day, HH: hour, mm: minute } = parts as Record<string, number>;
  const ms = Date.UTC(y!, month! - 1, day!, hour!, minute!);
  const date = new Date(ms);
  // Date.UTC rolls 31 April over to 1 May: a date that does not exist does not fit.
  if (
    month! < 1 ||
    month! > 12 ||
    date.getUTCDate() !== day ||
    date.getUTCMonth() !== month! - 1 ||
    hour! > 23 ||
    minute! > 59
  ) {
    throw fail();
  }
  return date;
}

/** `today()`: the date in `timeZone` at `now`, midnight on the UTC clock face (as dateOf). */
export function todayIn(timeZone: string, now: Date): Date {
  const text = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
  return new Date(`${text}T00:00:00.000Z`);
}

/** Patterns compiled so far (as RE2: linear time, whatever a cell holds). */
const patterns = new Map<string, RE2JS>();
const MAX_PATTERNS = 256;

/** The RE2 program of a pattern, or the reason it is none (for the compile-time check). */
export function re2Of(pattern: string): RE2JS | string {
  let re = patterns.get(pattern);
  if (re !== undefined) return re;
  try {
    re = re2Library().RE2JS.compile(pattern);
  } catch (err) {
    return (err as Error).message;
  }
  if (patterns.size >= MAX_PATTERNS) patterns.clear();
  patterns.set(pattern, re);
  return re;
}

/** `text.matches(pattern)`: RE2 syntax, true when the pattern matches any part of the text (as CEL). */
export function matchesRe2(text: string, pattern: string): boolean {
  const re = re2Of(pattern);
  if (typeof re === 'string') {
    throw rowFailure('invalid_regular_expression', `matches() pattern is not RE2: ${re}`);
  }
  return re.test(text);
}

/** CEL's strings extension `replace(old, new)`: every occurrence. */
export function replaceAll(text: string, old: string, replacement: string): string {
  return text.replaceAll(old, replacement);
}
