import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  brokenLinks,
  CONTENTS_START,
  LONG_DOC_LINES,
  missingPaths,
  projectDocs,
  slug,
  withContents,
} from '../../scripts/lib/markdownDocs.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const docs = projectDocs(root);

describe('the documents', () => {
  it('give each long document a contents list of its sections (node scripts/docs-contents.ts)', () => {
    for (const doc of docs) {
      const text = readFileSync(`${root}${doc}`, 'utf8');
      if (text.split('\n').length < LONG_DOC_LINES) continue;
      expect(text, doc).toContain(CONTENTS_START);
      expect(withContents(text), doc).toBe(text);
    }
  });

  it('link only to files and headings that exist', () => {
    expect(docs.flatMap((doc) => brokenLinks(root, doc))).toEqual([]);
  });

  it('name only source and test files that exist', () => {
    expect(docs.flatMap((doc) => missingPaths(root, doc))).toEqual([]);
  });

  it('keep the README short enough to read (about 250 lines)', () => {
    expect(readFileSync(`${root}README.md`, 'utf8').split('\n').length).toBeLessThanOrEqual(260);
  });

  it('make anchors as GitHub does', () => {
    expect(slug("Drift: the portal changed behind the daemon's back")).toBe(
      'drift-the-portal-changed-behind-the-daemons-back',
    );
    expect(slug('The JSON under /api/')).toBe('the-json-under-api');
    expect(slug('`supplier-sync plan FILE [--json]`')).toBe('supplier-sync-plan-file---json');
  });
});
