import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './configError.ts';
import {
  type ColumnRefInput,
  columnRef,
  condition,
  fieldName,
  fieldSource,
} from './profileColumns.ts';
import { checkProfileExpressions } from './profileExprs.ts';
import { parseJsonFile, type WatchedFile, type WatchLog, watchJsonFile } from './watchedFile.ts';

/**
 * The profiles file (INBOX_PROFILES_FILE): how to read the exports of one ERP — its encoding,
 * delimiter, header line, column names, constants, decimal mark, negatives and whether a file is
 * a full export. See the product contract, "ERP exports as they come". The JSON Schema shipped in
 * config/inbox-profiles.schema.json is generated from this one (scripts/write-json-schemas.ts).
 */

/** The portal's largest quantity (its integers are 32-bit signed). */
const MAX_QUANTITY = 2_147_483_647;

/** What a quantity text or a row condition makes of a row. */
const valueMeaning = z.union(
  [
    z
      .int('must be a whole number, "skip" or "keep"')
      .min(0, 'must be at least 0')
      .max(MAX_QUANTITY),
    z.enum(['skip', 'keep']),
  ],
  { error: 'must be a whole number ≥ 0, "skip" or "keep"' },
);

export const profileSchema = z
  .strictObject({
    match: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .describe('Glob on the file name, case-insensitive: * any run of characters, ? one.'),
    kind: z
      .enum(['factory', 'dc', 'confirmations', 'products'])
      .optional()
      .describe('The kind of the files; unset: told by their columns.'),
    encoding: z
      .enum(['auto', 'utf-8', 'utf-16le', 'utf-16be', 'windows-1252', 'iso-8859-1'])
      .default('auto')
      .describe('auto: a BOM, else UTF-8 when valid, else Windows-1252.'),
    delimiter: z
      .string()
      .refine((d) => d === 'auto' || ([...d].length === 1 && !/["\r\n]/.test(d)), {
        message: 'must be "auto" or one character (not a quote or a line break)',
      })
      .default('auto')
      .describe('auto: detected from the header line (of , ; TAB |); or one character.'),
    headerLine: z
      .int('must be a whole number')
      .min(0, 'must be at least 0')
      .default(1)
      .describe(
        "The line (delimited text) or row (.xlsx, the sheet's own row number) holding the header; those above are skipped. 0: the file has no header, columns are given by position or letter.",
      ),
    dataLine: z
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .optional()
      .describe(
        'The first line (row) of data, when it is not the one after headerLine; lines between are skipped.',
      ),
    sheet: z
      .union([z.string().trim().min(1, 'must not be empty'), z.int().min(1, 'counts from 1')], {
        error: 'must be a sheet name or a 1-based position',
      })
      .optional()
      .describe('.xlsx: the worksheet by name (any case) or 1-based position; default the first.'),
    columns: z
      .record(fieldName, fieldSource)
      .default({})
      .describe(
        'Field → where it comes from: a header name (trimmed, any case), a 1-based position, { "letter": "BM" }, { "name": N, "occurrence": "last" | K } or { "expr": CEL }.',
      ),
    constants: z
      .record(fieldName, z.union([z.string(), z.number(), z.boolean()]))
      .default({})
      .describe('API field → one value for every row; counts like a column when the kind is told.'),
    decimal: z
      .enum(['.', ','])
      .default('.')
      .describe('The decimal mark; the other of . and , may group thousands.'),
    negative: z
      .enum(['reject', 'zero'])
      .default('reject')
      .describe(
        'reject: a negative quantity is a bad value; zero: offered as 0 and counted as clamped.',
      ),
    absent: z
      .enum(['keep', 'zero'])
      .default('keep')
      .describe(
        'keep: keys the file does not name stay; zero: a full export, keys it omits go to 0.',
      ),
    duplicates: z
      .enum(['last', 'sum'])
      .default('last')
      .describe(
        "Rows naming the same key: last: the last row wins; sum: their quantities add up (after the stock rules' locations).",
      ),
    values: z
      .record(z.string(), valueMeaning)
      .default({})
      .describe(
        'Quantity text (trimmed, case-insensitive; "" an empty cell) → a whole number, "skip" (the row is left out) or "keep" (the key keeps its value).',
      ),
    when: z
      .array(condition)
      .default([])
      .describe('Row conditions, the first match wins: skip, keep, zero or reject the row.'),
    fractions: z
      .enum(['reject', 'floor', 'round'])
      .default('reject')
      .describe(
        'A quantity with a fraction that is not zeros: reject (a bad value), floor or round.',
      ),
    subtract: z
      .array(columnRef)
      .default([])
      .describe('Columns whose values are taken off the quantity (an empty cell counts as 0).'),
    spread: z
      .record(
        z.string().trim().min(1, 'must name a column'),
        z.string().trim().min(1, 'must name a centre'),
      )
      .default({})
      .describe(
        'A wide export: quantity column (a position when headerLine is 0) → distribution-centre or ERP location code; each row becomes one DC row per column.',
      ),
  })
  .superRefine((p, ctx) => {
    const issue = (path: Array<string | number>, message: string) =>
      ctx.addIssue({ code: 'custom', path, message });
    // A file without a header has positions and letters, not names.
    const positional = p.headerLine === 0;
    const checkRef = (ref: ColumnRefInput, path: Array<string | number>) => {
      if (positional && (typeof ref === 'string' || (typeof ref === 'object' && 'name' in ref)))
        issue(
          path,
          'names a header column: headerLine 0 means the file has no header (give a position or a letter)',
        );
    };
    for (const [field, source] of Object.entries(p.columns)) {
      if (typeof source !== 'object' || !('expr' in source)) checkRef(source, ['columns', field]);
    }
    for (const [i, c] of p.when.entries())
      if ('column' in c) checkRef(c.column, ['when', i, 'column']);
    for (const [i, ref] of p.subtract.entries()) checkRef(ref, ['subtract', i]);
    for (const column of Object.keys(p.spread)) {
      if (positional && !/^[1-9]\d*$/.test(column.trim())) {
        issue(
          ['spread', column],
          'must be a 1-based position: headerLine 0 means the file has no header',
        );
      }
    }
    if (p.dataLine !== undefined && p.dataLine <= p.headerLine) {
      issue(['dataLine'], `must come after headerLine (${p.headerLine})`);
    }
    checkProfileExpressions(p, issue);
    const stockOnly = (
      ['duplicates', 'values', 'when', 'fractions', 'subtract', 'spread'] as const
    ).filter((k) =>
      Array.isArray(p[k])
        ? (p[k] as unknown[]).length > 0
        : typeof p[k] === 'object'
          ? Object.keys(p[k]).length > 0
          : p[k] !== profileDefaults[k],
    );
    if ((p.kind === 'confirmations' || p.kind === 'products') && stockOnly.length > 0) {
      issue([stockOnly[0]!], `applies to stock files only, and the profile says ${p.kind}`);
    }
    if (Object.keys(p.spread).length > 0) {
      if (p.kind === 'factory') issue(['spread'], 'makes a DC file, and the profile says factory');
      for (const field of ['stock_quantity', 'distribution_centre_code'] as const) {
        if (field in p.columns || field in p.constants) {
          issue(['spread'], `gives ${field} from its columns; the profile must not map it too`);
        }
      }
    }
    const byColumn = new Map<string, string>();
    for (const [field, source] of Object.entries(p.columns)) {
      if (field in p.constants) {
        issue(['constants', field], 'is both a column and a constant; keep one');
      }
      if (typeof source === 'object' && 'expr' in source) continue;
      const key = refKey(source);
      const other = byColumn.get(key);
      if (other !== undefined) {
        issue(['columns', field], `names the column ${refText(source)} that ${other} names too`);
      }
      byColumn.set(key, field);
    }
  });

export const profilesFileSchema = z
  .strictObject({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors.'),
    profiles: z
      .array(profileSchema)
      .describe('Tried in order: a file is read with the first profile whose match fits its name.'),
  })
  .describe('supplier-sync inbox profiles (INBOX_PROFILES_FILE)');

/** One column reference as compared with another (names trimmed, any case). */
function refKey(ref: ColumnRefInput): string {
  if (typeof ref === 'string') return `name:${ref.trim().toLowerCase()}`;
  if (typeof ref === 'number') return `position:${ref}`;
  if ('letter' in ref) return `letter:${ref.letter.toUpperCase()}`;
  return `name:${ref.name.trim().toLowerCase()}#${ref.occurrence}`;
}

/** A column reference for a message: `"Qty"`, `3`, `BM`, `the last "End Stock"`. */
function refText(ref: ColumnRefInput): string {
  if (typeof ref === 'string') return `"${ref}"`;
  if (typeof ref === 'number') return `${ref}`;
  if ('letter' in ref) return ref.letter.toUpperCase();
  const which = ref.occurrence === 'last' ? 'the last' : `occurrence ${ref.occurrence} of`;
  return `${which} "${ref.name}"`;
}

/** The defaults of the fields that apply to stock files only (for the check above). */
const profileDefaults = { duplicates: 'last', fractions: 'reject' } as Record<string, unknown>;

export type Profile = z.output<typeof profileSchema>;
export type ProfilesFile = z.output<typeof profilesFileSchema>;

/**
 * One line naming what is wrong with a profiles file: the profile by index and match, and the
 * field — `profiles[1] (match "LAGER_*.TXT"), columns.skux: unknown field "skux"; …`.
 */
export function describeProfilesProblem(error: z.ZodError, input: unknown): string {
  const first = error.issues[0];
  if (first === undefined) return 'invalid';
  const issue = innermost(first);
  const path = [...issue.path];
  if (path[0] === 'profiles' && typeof path[1] === 'number') {
    const index = path[1];
    const match = (input as { profiles?: Array<{ match?: unknown }> })?.profiles?.[index]?.match;
    const where = typeof match === 'string' ? ` (match "${match}")` : '';
    const field = path.slice(2).map(String).join('.');
    return `profiles[${index}]${where}${field === '' ? '' : `, ${field}`}: ${issue.message}`;
  }
  return `${path.length > 0 ? `${path.map(String).join('.')}: ` : ''}${issue.message}`;
}

/**
 * The issue that says what is wrong: for a value of one of several forms (a column, a
 * condition), the form it came closest to — the one with the fewest issues, among those whose
 * shape it has (their issues are inside it); for a record's key, the key's own issue. Paths are
 * made whole.
 */
function innermost(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  if (issue.code === 'invalid_key' && issue.issues[0] !== undefined) {
    return { path: issue.path, message: issue.issues[0].message };
  }
  if (issue.code !== 'invalid_union') return issue;
  // A form refused as a whole (its type, its value) says less than the union's own message.
  const inside = (i: z.core.$ZodIssue) =>
    i.path.length > 0 || i.code === 'unrecognized_keys' || i.code === 'invalid_union';
  // Keys it does not know mean another form more than a value does.
  const distance = (b: readonly z.core.$ZodIssue[]) =>
    b.length + (b.some((i) => i.code === 'unrecognized_keys') ? 10 : 0);
  const branches = issue.errors.filter((b) => b.length > 0 && b.every(inside));
  const closest = branches
    .sort((a, b) => distance(a) - distance(b))[0]
    ?.find((i) => i.code !== 'unrecognized_keys');
  if (closest === undefined) return issue;
  const inner = innermost(closest);
  return { path: [...issue.path, ...inner.path], message: inner.message };
}

/** Loads INBOX_PROFILES_FILE (ConfigError, exit 78, when invalid) and re-reads it on change. */
export function watchProfilesFile(
  path: string,
  log: WatchLog,
  intervalMs?: number,
): WatchedFile<ProfilesFile> {
  return watchJsonFile({
    name: 'profiles',
    settingKey: 'INBOX_PROFILES_FILE',
    path,
    schema: profilesFileSchema,
    describe: describeProfilesProblem,
    log,
    ...(intervalMs === undefined ? {} : { intervalMs }),
  });
}

/**
 * Reads INBOX_PROFILES_FILE once, for commands that run and end (`plan`): a ConfigError (exit 78)
 * naming the problem when it is missing or invalid, as at the daemon's start.
 */
export function loadProfilesFile(path: string): ProfilesFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new ConfigError(
      'INBOX_PROFILES_FILE',
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`,
    );
  }
  const parsed = parseJsonFile(bytes, {
    schema: profilesFileSchema,
    describe: describeProfilesProblem,
  });
  if (!parsed.ok) throw new ConfigError('INBOX_PROFILES_FILE', `${path}: ${parsed.problem}`);
  return parsed.value;
}
