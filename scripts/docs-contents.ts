import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { projectDocs, withContents } from './lib/markdownDocs.ts';

// The contents list of every long document, from its `##` headings (test/unit/docs.test.ts checks it).
const root = fileURLToPath(new URL('..', import.meta.url));
for (const doc of projectDocs(root)) {
  const path = `${root}${doc}`;
  const text = readFileSync(path, 'utf8');
  const next = withContents(text);
  if (next !== text) {
    writeFileSync(path, next);
    console.log(`contents of ${doc} written`);
  }
}
