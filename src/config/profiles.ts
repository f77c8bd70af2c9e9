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

/** A products file's own fields (docs/products.md), beside `sku`. */
export const PRODUCT_FIELDS = [
  'name',
  'description',
  'brand',
  'range',
  'images',
  'image_type',
  'factory_stock',
] as const;

/**
 * A products file's fields by site or by centre, the code after `@`: `price@UK`, `stock@DC-LON`
 * (PRODUCT_FIELD_FAMILY).
 */
export const PRODUCT_FAMILIES = [
  'price',
  'price_currency',
  'tax_rate_id',
  'preorder_discount_percent',
  'factory_stock_discount_percent',
  'stock',
] as const;

export const PRODUCT_FIELD_FAMILY = new RegExp(`^(${PRODUCT_FAMILIES.join('|')})@\\S+$`);

/** The API's field names: what `columns` and `constants` may name (and the product families). */
export const API_FIELDS = [
  'sku',
  'stock_quantity',
  'distribution_centre_code',
  'order_number',
  'carrier',
  'tracking_number',
  'is_collected',
  'action',
  ...PRODUCT_FIELDS,
] as const;
export type ApiField = (typeof API_FIELDS)[number];

const apiField = z
  .string()
  .regex(new RegExp(`^(${API_FIELDS.join('|')})$|${PRODUCT_FIELD_FAMILY.source}`), {
    error: (issue) =>
      `unknown field "${String(issue.input)}"; fields are ${API_FIELDS.join(', ')}, and price@SITE, price_currency@SITE, tax_rate_id@SITE, preorder_discount_percent@SITE, factory_stock_discount_percent@SITE, stock@CENTRE`,
  });

/** The portal's largest quantity (its integers are 32-bit signed). */
const MAX_QUANTITY = 2_147_483_647;

/** A column of the file: its name, or (a file without a header, `headerLine: 0`) its 1-based position. */
const columnRef = z.union([
  z.string().trim().min(1, 'must name a column'),
  z.int('a position must be a whole number').min(1, 'a position counts from 1'),
]);

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

const condition = z.strictObject({
  column: columnRef.describe('The column looked at (a position when headerLine is 0).'),
  equals: z
    .array(z.union([z.string(), z.number()]))
    .min(1, 'must list at least one value')
    .describe('Values that match, compared trimmed and case-insensitive.'),
  // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
  then: z
    .enum(['skip', 'keep', 'zero'])
    .describe('skip: left out; keep: the key keeps its value; zero: offered as 0.'),
});

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
        'The line (delimited text) or row (.xlsx) holding the header; those above are skipped. 0: the file has no header, columns are given by position.',
      ),
    columns: z
      .record(apiField, columnRef)
      .default({})
      .describe(
        "API field → the file's column name (case and surrounding spaces ignored), or its 1-based position when headerLine is 0.",
      ),
    constants: z
      .record(apiField, z.union([z.string(), z.number(), z.boolean()]))
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
      .describe('Row conditions, the first match wins: skip, keep or zero the row.'),
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
    // A file without a header has positions, not names; a file with one has names.
    const positional = p.headerLine === 0;
    const checkRef = (ref: string | number, path: Array<string | number>) => {
      if (positional && typeof ref !== 'number')
        issue(path, 'must be a 1-based position: headerLine 0 means the file has no header');
      if (!positional && typeof ref === 'number')
        issue(path, 'is a position, which only a file without a header (headerLine 0) takes');
    };
    for (const [field, ref] of Object.entries(p.columns)) checkRef(ref!, ['columns', field]);
    for (const [i, c] of p.when.entries()) checkRef(c.column, ['when', i, 'column']);
    for (const [i, ref] of p.subtract.entries()) checkRef(ref, ['subtract', i]);
    for (const column of Object.keys(p.spread)) {
      if (positional && !/^[1-9]\d*$/.test(column.trim())) {
        issue(
          ['spread', column],
          'must be a 1-based position: headerLine 0 means the file has no header',
        );
      }
    }
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
    for (const [field, column] of Object.entries(p.columns)) {
      const key = String(column).trim().toLowerCase();
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
  // A key of `columns` or `constants` that names no field: the field's own message, at the map.
  const nested = first.code === 'invalid_key' ? first.issues[0] : undefined;
  const issue =
    nested === undefined ? first : { path: first.path.slice(0, -1), message: nested.message };
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
