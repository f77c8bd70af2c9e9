import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './configError.ts';
import { parseJsonFile, type WatchedFile, type WatchLog, watchJsonFile } from './watchedFile.ts';

/**
 * The stock rules file (STOCK_RULES_FILE): ERP location codes mapped to portal DC codes, and
 * ordered rules that hold units back, offer a share, cap or exclude keys. See the product
 * contract, "Stock rules". The JSON Schema shipped in config/stock-rules.schema.json is generated
 * from this one (scripts/write-json-schemas.ts); the evaluation is src/domain/stockRules.ts.
 */

// C0 controls, DEL, C1 controls: never part of a code or a SKU pattern.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const code = (what: string) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .refine((s) => !CONTROL.test(s), { message: `${what} must not hold control characters` });

const whole = (what: string) => z.int(`${what} must be a whole number`);

export const stockRuleSchema = z
  .strictObject({
    kind: z
      .enum(['factory', 'dc'], { error: 'must be "factory" or "dc"' })
      .optional()
      .describe('Matches factory stock or distribution-centre stock only; unset: both.'),
    dc: code('a DC code')
      .optional()
      .describe(
        'Matches this portal distribution-centre code exactly (DC stock only; after `locations`).',
      ),
    sku: code('a SKU pattern')
      .optional()
      .describe('Matches this SKU, exact or with * (any run of characters); case-insensitive.'),
    exclude: z
      .boolean()
      .optional()
      .describe('true: never pushed; what the portal holds is left as it is.'),
    buffer: whole('buffer')
      .min(0, 'buffer must be 0 or more')
      .max(2_147_483_647, 'buffer is too large')
      .optional()
      .describe('Units held back from what the ERP counts (default 0).'),
    percent: whole('percent')
      .min(0, 'percent must be from 0 to 100')
      .max(100, 'percent must be from 0 to 100')
      .optional()
      .describe('Share offered of what remains after the buffer, rounded down (default 100).'),
    max: whole('max')
      .min(0, 'max must be 0 or more')
      .max(2_147_483_647, 'max is too large')
      .optional()
      .describe('The most ever offered.'),
  })
  .superRefine((r, ctx) => {
    if (r.kind === 'factory' && r.dc !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['dc'],
        message: 'a dc never matches factory stock (kind "factory"): drop one of them',
      });
    }
    if (r.exclude === true) {
      const other = (['buffer', 'percent', 'max'] as const).find((e) => r[e] !== undefined);
      if (other !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [other],
          message: `an excluded key is never offered: ${other} has no effect with exclude`,
        });
      }
    }
  });

export const stockRulesFileSchema = z
  .strictObject({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors.'),
    locations: z
      .record(code('an ERP location code'), code('a DC code'))
      .default({})
      .describe(
        "ERP location code → portal distribution-centre code, applied to DC files' and snapshot rows' codes before they are checked.",
      ),
    rules: z
      .array(stockRuleSchema)
      // The apply packs a rule's position into 16 bits (src/state/stock/ruleOffers.ts).
      .max(10_000, 'at most 10000 rules')
      .default([])
      .describe(
        'Tried in order for each stock key: the first rule whose matchers all match applies.',
      ),
  })
  .describe('supplier-sync stock rules (STOCK_RULES_FILE)');

export type StockRulesFile = z.output<typeof stockRulesFileSchema>;

/**
 * One line naming what is wrong with a rules file: the rule by index (with its sku or dc when it
 * has one) and the field — `rules[2] (sku "SKU-1*"), percent: percent must be from 0 to 100`.
 */
export function describeStockRulesProblem(error: z.ZodError, input: unknown): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const path = [...issue.path];
  if (path[0] === 'rules' && typeof path[1] === 'number') {
    const index = path[1];
    const rule = (input as { rules?: Array<{ sku?: unknown; dc?: unknown }> })?.rules?.[index];
    const named =
      typeof rule?.sku === 'string'
        ? ` (sku "${rule.sku}")`
        : typeof rule?.dc === 'string'
          ? ` (dc "${rule.dc}")`
          : '';
    const field = path.slice(2).map(String).join('.');
    return `rules[${index}]${named}${field === '' ? '' : `, ${field}`}: ${issue.message}`;
  }
  return `${path.length > 0 ? `${path.map(String).join('.')}: ` : ''}${issue.message}`;
}

/** Loads STOCK_RULES_FILE (ConfigError, exit 78, when invalid) and re-reads it on change. */
export function watchStockRulesFile(
  path: string,
  log: WatchLog,
  onChange?: (rules: StockRulesFile) => void,
  intervalMs?: number,
): WatchedFile<StockRulesFile> {
  return watchJsonFile({
    name: 'rules',
    settingKey: 'STOCK_RULES_FILE',
    path,
    schema: stockRulesFileSchema,
    describe: describeStockRulesProblem,
    log,
    ...(onChange === undefined ? {} : { onChange }),
    ...(intervalMs === undefined ? {} : { intervalMs }),
  });
}

/** Reads STOCK_RULES_FILE once (for commands such as `plan`); ConfigError when it is bad. */
export function readStockRulesFile(path: string): StockRulesFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new ConfigError(
      'STOCK_RULES_FILE',
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`,
    );
  }
  const parsed = parseJsonFile(bytes, {
    schema: stockRulesFileSchema,
    describe: describeStockRulesProblem,
  });
  if (!parsed.ok) throw new ConfigError('STOCK_RULES_FILE', `${path}: ${parsed.problem}`);
  return parsed.value;
}
