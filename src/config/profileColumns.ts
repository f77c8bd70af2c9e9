import { z } from 'zod';

/**
 * What a profile's `columns`, `constants` and `when` may say (product contract, "ERP exports as
 * they come" and "Any export: expressions and spreadsheet layouts"): the fields a column may
 * give, the ways of naming a column, and expressions. Kept apart from profiles.ts, which puts
 * them together.
 */

/**
 * The fields a profile may give, one entry each, with what an expression for it must give. A
 * name ending in `@SITE` or `@DC` is a family: `price@UK`, `stock@DC-LON`. Adding a field is
 * adding an entry.
 */
export const PROFILE_FIELDS = [
  { field: 'sku', gives: 'text' },
  { field: 'stock_quantity', gives: 'quantity' },
  { field: 'distribution_centre_code', gives: 'text' },
  { field: 'order_number', gives: 'text' },
  { field: 'carrier', gives: 'text' },
  { field: 'tracking_number', gives: 'text' },
  { field: 'is_collected', gives: 'flag' },
  { field: 'action', gives: 'text' },
  // Products files (contract, "New products").
  { field: 'name', gives: 'text' },
  { field: 'description', gives: 'text' },
  { field: 'brand', gives: 'text' },
  { field: 'range', gives: 'text' },
  { field: 'images', gives: 'text' },
  { field: 'image_type', gives: 'text' },
  { field: 'factory_stock', gives: 'quantity' },
  { field: 'price@SITE', gives: 'quantity' },
  { field: 'price_currency@SITE', gives: 'text' },
  { field: 'tax_rate_id@SITE', gives: 'quantity' },
  { field: 'preorder_discount_percent@SITE', gives: 'quantity' },
  { field: 'factory_stock_discount_percent@SITE', gives: 'quantity' },
  { field: 'stock@DC', gives: 'quantity' },
] as const satisfies ReadonlyArray<{ field: string; gives: FieldGives }>;

/** A products file's own fields, beside `sku` (docs/products.md). */
export const PRODUCT_FIELDS: readonly string[] = PROFILE_FIELDS.slice(
  PROFILE_FIELDS.findIndex((f) => f.field === 'name'),
)
  .map((f) => f.field)
  .filter((f) => !f.includes('@'));

/** A products file's fields by site or by centre, the code after `@`: `price@UK`, `stock@DC-LON`. */
export const PRODUCT_FAMILIES: readonly string[] = PROFILE_FIELDS.flatMap((f) =>
  f.field.includes('@') ? [f.field.slice(0, f.field.indexOf('@'))] : [],
);

/** What an expression for a field must give: text, a number or text, or a flag. */
export type FieldGives = 'text' | 'quantity' | 'flag';

const FAMILY = /@(SITE|DC)$/;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every field name of PROFILE_FIELDS, families as `name@CODE`. */
const FIELD_NAME = new RegExp(
  `^(?:${PROFILE_FIELDS.map((f) =>
    FAMILY.test(f.field) ? `${escapeRegExp(f.field.replace(FAMILY, ''))}@[A-Za-z0-9_.-]+` : f.field,
  ).join('|')})$`,
);

/** The field names as a person reads them, for messages. */
const FIELD_LIST = PROFILE_FIELDS.map((f) => f.field.replace(FAMILY, '@$1')).join(', ');

/** What an expression for `field` must give (text for a name no entry knows). */
export function fieldGives(field: string): FieldGives {
  const family = field.includes('@') ? field.slice(0, field.indexOf('@')) : undefined;
  const entry = PROFILE_FIELDS.find((f) =>
    family === undefined ? f.field === field : f.field.replace(FAMILY, '') === family,
  );
  return entry?.gives ?? 'text';
}

export const fieldName = z
  .string()
  .regex(FIELD_NAME, {
    error: (issue) => `unknown field "${String(issue.input)}"; fields are ${FIELD_LIST}`,
  })
  .describe(`A field: ${FIELD_LIST} (SITE: a site code, DC: a centre code).`);

/** Columns of a worksheet, A to XFD; also the widest header read. */
export const MAX_COLUMN = 16_384;

const columnName = z.string().trim().min(1, 'must name a column');
const position = z
  .int('a position must be a whole number')
  .min(1, 'a position counts from 1')
  .max(MAX_COLUMN, `a position is at most ${MAX_COLUMN}`);

/** A column by its letters (`A` … `XFD`). */
const letter = z.strictObject({
  letter: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{1,3}$/, 'must be column letters, A to XFD')
    .refine((l) => l.length < 3 || l.toUpperCase() <= 'XFD', 'must be column letters, A to XFD')
    .describe('Column letters, as a spreadsheet shows them (A, BM).'),
});

/** The K-th (1-based) or last column of a name that a header repeats. */
const occurrence = z.strictObject({
  name: columnName.describe('The header name (trimmed, any case).'),
  occurrence: z
    .union([z.literal('last'), z.int().min(1, 'counts from 1')], {
      error: 'must be "last" or a whole number from 1',
    })
    .describe('"last", or K: the K-th column of that name, counted from the left.'),
});

/**
 * A column: its header name (a plain string, always), its 1-based position (with or without a
 * header line), its letters, or one of the columns a header names alike.
 */
export const columnRef = z.union([columnName, position, letter, occurrence], {
  error:
    'must be a header name, a 1-based position, { "letter": … } or { "name": …, "occurrence": … }',
});
export type ColumnRefInput = z.output<typeof columnRef>;

/** A field's value computed from the row, in CEL. */
export const fieldExpr = z.strictObject({
  expr: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(4000, 'is over 4000 characters')
    .describe(
      "A CEL expression over row['Header'], cell.BM and col[3] (cell texts; '' when empty).",
    ),
});

/** Where a field comes from: a column, or an expression. */
export const fieldSource = z.union([columnRef, fieldExpr], {
  error:
    'must be a header name, a 1-based position, { "letter": … }, { "name": …, "occurrence": … } or { "expr": … }',
});

const reason = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'is over 200 characters')
  .optional()
  .describe('reject: the reason named in the report (default: the condition).');

const then = z
  .enum(['skip', 'keep', 'zero', 'reject'])
  .describe(
    'skip: left out; keep: the key keeps its value; zero: offered as 0; reject: rejected, named in the report.',
  );

/** A row condition: a column's value among some texts, or a CEL condition. */
export const condition = z.union(
  [
    z.strictObject({
      column: columnRef.describe('The column looked at.'),
      equals: z
        .array(z.union([z.string(), z.number()]))
        .min(1, 'must list at least one value')
        .describe('Values that match, compared trimmed and case-insensitive.'),
      then,
      reason,
    }),
    z.strictObject({
      if: z
        .string()
        .trim()
        .min(1, 'must not be empty')
        .max(4000, 'is over 4000 characters')
        .describe('A CEL condition over the row: true → then.'),
      then,
      reason,
    }),
  ],
  { error: 'must be { "column", "equals", "then" } or { "if", "then" }' },
);
