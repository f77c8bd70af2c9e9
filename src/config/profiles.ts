import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './configError.ts';
import { parseJsonFile, type WatchedFile, type WatchLog, watchJsonFile } from './watchedFile.ts';

/**
 * The profiles file (INBOX_PROFILES_FILE): how to read the exports of one ERP — its encoding,
 * delimiter, header line, column names, constants, decimal mark, negatives and whether a file is
 * a full export. See the product contract, "ERP exports as they come". The JSON Schema shipped in
 * config/inbox-profiles.schema.json is generated from this one (scripts/write-json-schemas.ts).
 */

/** The API's field names: what `columns` and `constants` may name. */
export const API_FIELDS = [
  'sku',
  'stock_quantity',
  'distribution_centre_code',
  'order_number',
  'carrier',
  'tracking_number',
  'is_collected',
  'action',
] as const;
export type ApiField = (typeof API_FIELDS)[number];

const apiField = z.enum(API_FIELDS, {
  error: (issue) => `unknown field "${String(issue.input)}"; fields are ${API_FIELDS.join(', ')}`,
});

export const profileSchema = z
  .strictObject({
    match: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .describe('Glob on the file name, case-insensitive: * any run of characters, ? one.'),
    kind: z
      .enum(['factory', 'dc', 'confirmations'])
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
      .min(1, 'must be at least 1')
      .default(1)
      .describe(
        'The line (delimited text) or row (.xlsx) holding the header; those above are skipped.',
      ),
    columns: z
      .partialRecord(apiField, z.string().trim().min(1, 'must name a column'))
      .default({})
      .describe("API field → the file's column name (case and surrounding spaces ignored)."),
    constants: z
      .partialRecord(apiField, z.union([z.string(), z.number(), z.boolean()]))
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
  })
  .superRefine((p, ctx) => {
    const byColumn = new Map<string, string>();
    for (const [field, column] of Object.entries(p.columns)) {
      const key = column.trim().toLowerCase();
      const other = byColumn.get(key);
      if (other !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['columns', field],
          message: `names the column "${column}" that ${other} names too`,
        });
      }
      byColumn.set(key, field);
      if (field in p.constants) {
        ctx.addIssue({
          code: 'custom',
          path: ['constants', field],
          message: 'is both a column and a constant; keep one',
        });
      }
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

export type Profile = z.output<typeof profileSchema>;
export type ProfilesFile = z.output<typeof profilesFileSchema>;

/**
 * One line naming what is wrong with a profiles file: the profile by index and match, and the
 * field — `profiles[1] (match "LAGER_*.TXT"), columns.skux: unknown field "skux"; …`.
 */
export function describeProfilesProblem(error: z.ZodError, input: unknown): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
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
