import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  brokenLinks,
  CONTENTS_START,
  LONG_DOC_LINES,
  missingPaths,
  projectDocs,
  slug,
  sourceFiles,
  unknownFileNames,
  unprovenPromises,
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

  it('name only files and folders of the project that exist, by their full path', () => {
    expect(docs.flatMap((doc) => missingPaths(root, doc))).toEqual([]);
  });

  it('name only code files that exist, by their name or the end of their path', () => {
    const files = sourceFiles(root);
    expect(docs.flatMap((doc) => unknownFileNames(root, doc, files))).toEqual([]);
  });

  it('give each promise of docs/reliability.md a test file, and only test names its files hold', () => {
    expect(unprovenPromises(root, 'docs/reliability.md')).toEqual([]);
  });

  it('find a missing file however it is named', () => {
    const probe = mkdtempSync(join(tmpdir(), 'docs-probe-'));
    try {
      const files = ['src/inventory/apply/guardFile.ts', 'test/e2e/launchFlags.test.ts'];
      for (const file of files) {
        mkdirSync(join(probe, dirname(file)), { recursive: true });
        writeFileSync(join(probe, file), '');
      }
      mkdirSync(join(probe, 'docs'));
      const doc = 'docs/probe.md';
      const text = [
        '`src/inventory/apply/guardFile.ts` `src/nowhere/gone.ts:12` `test/e2e/` `examples/none.csv`',
        '`apply/guardFile.ts` `guardFile.ts` `launchFlags.test.ts` `staging/guardFile.ts` `gone.ts`',
        '`src/*.ts` `<name>.report.json` `dist/cli/main.js` [a](../test/e2e/) [b](../src/none/)',
      ].join('\n');
      writeFileSync(join(probe, doc), text);
      expect(missingPaths(probe, doc)).toEqual([
        `${doc}: src/nowhere/gone.ts`,
        `${doc}: examples/none.csv`,
      ]);
      expect(unknownFileNames(probe, doc, files)).toEqual([
        `${doc}: staging/guardFile.ts`,
        `${doc}: gone.ts`,
      ]);
      expect(brokenLinks(probe, doc)).toEqual([`${doc}: ../src/none/ (no such file)`]);
      writeFileSync(join(probe, files[1] ?? ''), "it('starts it without its flags', …)");
      const promises = 'docs/promises.md';
      writeFileSync(
        join(probe, promises),
        [
          '| promise | test | through |',
          '| --- | --- | --- |',
          '| flags | `test/e2e/launchFlags.test.ts` ("starts it without its flags") | a process |',
          '| gone | `test/e2e/launchFlags.test.ts` ("starts it twice") | a process |',
          '| none | a benchmark | — |',
        ].join('\n'),
      );
      expect(unprovenPromises(probe, promises)).toEqual([
        `${promises}: test/e2e/launchFlags.test.ts has no test "starts it twice"`,
        `${promises}: no test named for: | none | a benchmark | — |`,
      ]);
    } finally {
      rmSync(probe, { recursive: true });
    }
  });

  it('name in docs/logs.md every event the code logs', () => {
    const logs = readFileSync(`${root}docs/logs.md`, 'utf8');
    // The notifications' events (src/domain/notification.ts) are docs/notifications.md's.
    const code = sourceFiles(root)
      .filter((f) => f.startsWith('src/') && f !== 'src/domain/notification.ts')
      .map((f) => readFileSync(`${root}${f}`, 'utf8'))
      .join('\n');
    const events = new Set([...code.matchAll(/event: '([a-z_]+\.[a-z_.]+)'/g)].map((m) => m[1]));
    expect(events.size).toBeGreaterThan(150);
    expect([...events].filter((event) => !logs.includes(`\`${event}\``))).toEqual([]);
  });

  it('describe in docs/commands.md every command', async () => {
    const { commands } = await import('../../src/cli/commands/index.ts');
    const text = readFileSync(`${root}docs/commands.md`, 'utf8');
    const rows = text.split('\n').filter((line) => line.startsWith('| `'));
    const missing = commands.filter((c) => !rows.some((row) => row.startsWith(`| \`${c.name}`)));
    expect(missing.map((c) => c.name)).toEqual([]);
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
