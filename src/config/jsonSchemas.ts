import { z } from 'zod';
import { profilesFileSchema } from './profiles.ts';
import { stockRulesFileSchema } from './stockRulesFile.ts';

/**
 * JSON Schema files for the settings files operators write by hand, generated from the zod
 * schemas the daemon validates them with, so that an editor checks what a supplier types. Written
 * to config/ by scripts/write-json-schemas.ts; a test fails when a committed one is stale.
 * (Checks across fields, such as two fields mapped to one column, are the daemon's alone.)
 */
export const JSON_SCHEMA_FILES = {
  'inbox-profiles.schema.json': profilesFileSchema,
  'stock-rules.schema.json': stockRulesFileSchema,
} as const;

export function jsonSchemaText(schema: z.ZodType): string {
  // `input`: what a person writes, where fields with defaults may be left out.
  const json = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' });
  return `${JSON.stringify(json, null, 2)}\n`;
}
