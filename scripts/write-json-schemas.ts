import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { JSON_SCHEMA_FILES, jsonSchemaText } from '../src/config/jsonSchemas.ts';

// config/*.schema.json come from the zod schemas in src/config/ (a test fails until you run this),
// laid out by the project's formatter so that `npm run lint` accepts them.
for (const [name, schema] of Object.entries(JSON_SCHEMA_FILES)) {
  const file = new URL(`../config/${name}`, import.meta.url).pathname;
  writeFileSync(file, jsonSchemaText(schema));
  execFileSync(new URL('../node_modules/.bin/biome', import.meta.url).pathname, [
    'format',
    '--write',
    file,
  ]);
  console.log(`wrote config/${name}`);
}
