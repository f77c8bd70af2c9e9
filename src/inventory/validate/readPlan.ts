import { todayIn } from '../../config/expr/celFunctions.ts';
import type { Profile } from '../../config/profiles.ts';
import { compileGlob, type GlobMatcher } from '../../domain/glob.ts';
import type { DelimitedOptions } from '../parse/delimited.ts';
import type { XlsxOptions } from '../parse/xlsx.ts';
import { type ColumnRef, describeRef } from './headerKeys.ts';
import { type ColumnMapping, columnMapping } from './mapping.ts';
import type { QuantityOptions } from './quantity.ts';
import { bindExprs, profileExprs } from './rowExprs.ts';
import { type RowRules, rowRulesOf } from './rowRules.ts';

/**
 * How one inbox file is to be read: the profile chosen by its name (INBOX_PROFILES_FILE), turned
 * into the options of the readers, the quantity check and the column mapping. A file no profile
 * fits is read with the defaults and the API's field names.
 */
export interface ReadPlan {
  /** The profile used (its `match` names it in reports), or undefined. */
  readonly profile: Profile | undefined;
  readonly delimited: Pick<DelimitedOptions, 'encoding' | 'delimiter' | 'headerLine' | 'dataLine'>;
  readonly xlsx: Pick<XlsxOptions, 'headerLine' | 'dataLine' | 'sheet'>;
  readonly quantity: QuantityOptions;
  /** Undefined without a profile: columns are the API's names. */
  readonly mapping: ColumnMapping | undefined;
  /** `zero`: the file is a full export (keys of its kind it does not name go to 0). */
  readonly absent: 'keep' | 'zero';
  /** `sum`: rows of one key add up; `last`: the last one wins. */
  readonly duplicates: 'last' | 'sum';
  /** Columns the profile's expressions read, besides those its mapping names. */
  readonly reads: readonly ColumnRef[];
  /**
   * The profile's row rules (when, values, subtract, spread, expressions) for a file whose
   * columns are under the keys `keyOf` gives; undefined when it sets none.
   */
  readonly rulesFor: (keyOf: (ref: ColumnRef) => string | undefined) => RowRules | undefined;
}

/** When a file is read: `today()` is its date in SYNC_TIMEZONE. */
export interface ReadMoment {
  readonly now: Date;
  readonly timeZone: string;
}

/** Matchers compiled once per profile object (a re-read file gives new objects). */
const compiled = new WeakMap<object, GlobMatcher>();

/** The first profile whose `match` fits the file name, case-insensitively; undefined for none. */
export function chooseProfile<P extends { readonly match: string }>(
  profiles: readonly P[],
  fileName: string,
): P | undefined {
  return profiles.find((p) => {
    let matcher = compiled.get(p);
    if (matcher === undefined) {
      matcher = compileGlob(p.match);
      compiled.set(p, matcher);
    }
    return matcher(fileName);
  });
}

export function readPlanFor(
  profiles: readonly Profile[],
  fileName: string,
  moment: ReadMoment = { now: new Date(), timeZone: 'UTC' },
): ReadPlan {
  const profile = chooseProfile(profiles, fileName);
  if (profile === undefined) {
    return {
      profile,
      delimited: {},
      xlsx: {},
      quantity: {},
      mapping: undefined,
      absent: 'keep',
      duplicates: 'last',
      reads: [],
      rulesFor: () => undefined,
    };
  }
  const mapping = columnMapping(profile);
  const exprs = profileExprs(profile);
  const today = todayIn(moment.timeZone, moment.now);
  const spans = {
    headerLine: profile.headerLine,
    ...(profile.dataLine === undefined ? {} : { dataLine: profile.dataLine }),
  };
  return {
    profile,
    delimited: {
      encoding: profile.encoding,
      delimiter: profile.delimiter,
      ...spans,
    },
    xlsx: { ...spans, ...(profile.sheet === undefined ? {} : { sheet: profile.sheet }) },
    quantity: {
      decimal: profile.decimal,
      negative: profile.negative,
      fractions: profile.fractions,
    },
    mapping,
    absent: profile.absent,
    duplicates: profile.duplicates,
    reads: exprs?.reads ?? [],
    rulesFor: (keyOf) =>
      rowRulesOf(profile, keyOf, exprs === undefined ? undefined : bindExprs(exprs, keyOf, today)),
  };
}

/**
 * What a profile says beyond columns and text conventions, one phrase each (for `plan`):
 * `duplicates sum`, `fractions floor`, `when status = 0 → zero`, `values "not stocked" → 0`,
 * `subtract Reserved`, `spread Inventory Available: Shop → DC-LON`, `no header (by position)`.
 */
export function describeRules(profile: Profile | undefined): string[] {
  if (profile === undefined) return [];
  const out: string[] = [];
  if (profile.headerLine === 0) out.push('no header (columns by position)');
  if (profile.sheet !== undefined) out.push(`sheet ${JSON.stringify(profile.sheet)}`);
  if (profile.dataLine !== undefined) out.push(`data from line ${profile.dataLine}`);
  for (const [field, source] of Object.entries(profile.columns)) {
    if (typeof source === 'object' && 'expr' in source) out.push(`${field} = ${source.expr}`);
    else if (typeof source !== 'string') out.push(`${field} from ${describeRef(source)}`);
  }
  if (profile.duplicates === 'sum') out.push('duplicates sum');
  if (profile.fractions !== 'reject') out.push(`fractions ${profile.fractions}`);
  for (const c of profile.when) {
    const test = 'if' in c ? `if ${c.if}` : `${describeRef(c.column)} = ${c.equals.join(' | ')}`;
    const reason = c.then === 'reject' && c.reason !== undefined ? ` (${c.reason})` : '';
    out.push(`when ${test} → ${c.then}${reason}`);
  }
  for (const [text, v] of Object.entries(profile.values)) out.push(`values "${text}" → ${v}`);
  if (profile.subtract.length > 0) {
    out.push(
      `subtract ${profile.subtract.map((r) => (typeof r === 'string' ? r : describeRef(r))).join(', ')}`,
    );
  }
  for (const [column, dc] of Object.entries(profile.spread)) out.push(`spread ${column} → ${dc}`);
  if (profile.absent === 'zero') out.push('full export (absent zero)');
  return out;
}
