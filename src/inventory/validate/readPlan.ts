import type { Profile } from '../../config/profiles.ts';
import { compileGlob, type GlobMatcher } from '../../domain/glob.ts';
import type { DelimitedOptions } from '../parse/delimited.ts';
import type { XlsxOptions } from '../parse/xlsx.ts';
import { type ColumnMapping, columnMapping } from './mapping.ts';
import type { QuantityOptions } from './quantity.ts';

/**
 * How one inbox file is to be read: the profile chosen by its name (INBOX_PROFILES_FILE), turned
 * into the options of the readers, the quantity check and the column mapping. A file no profile
 * fits is read with the defaults and the API's field names.
 */
export interface ReadPlan {
  /** The profile used (its `match` names it in reports), or undefined. */
  readonly profile: Profile | undefined;
  readonly delimited: Pick<DelimitedOptions, 'encoding' | 'delimiter' | 'headerLine'>;
  readonly xlsx: Pick<XlsxOptions, 'headerLine'>;
  readonly quantity: QuantityOptions;
  /** Undefined without a profile: columns are the API's names. */
  readonly mapping: ColumnMapping | undefined;
  /** `zero`: the file is a full export (keys of its kind it does not name go to 0). */
  readonly absent: 'keep' | 'zero';
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

export function readPlanFor(profiles: readonly Profile[], fileName: string): ReadPlan {
  const profile = chooseProfile(profiles, fileName);
  if (profile === undefined) {
    return { profile, delimited: {}, xlsx: {}, quantity: {}, mapping: undefined, absent: 'keep' };
  }
  return {
    profile,
    delimited: {
      encoding: profile.encoding,
      delimiter: profile.delimiter,
      headerLine: profile.headerLine,
    },
    xlsx: { headerLine: profile.headerLine },
    quantity: { decimal: profile.decimal, negative: profile.negative },
    mapping: columnMapping(profile),
    absent: profile.absent,
  };
}
