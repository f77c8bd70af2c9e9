import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JSON_SCHEMA_FILES, jsonSchemaText } from '../../../src/config/jsonSchemas.ts';

describe('config/*.schema.json', () => {
  it.each(Object.entries(JSON_SCHEMA_FILES))(
    '%s matches its zod schema (regenerate with node scripts/write-json-schemas.ts)',
    (name, schema) => {
      const text = readFileSync(new URL(`../../../config/${name}`, import.meta.url), 'utf8');
      // Compared as JSON: the committed file is laid out by the formatter.
      expect(JSON.parse(text)).toEqual(JSON.parse(jsonSchemaText(schema)));
    },
  );
});
