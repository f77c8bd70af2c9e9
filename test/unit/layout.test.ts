import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The layout rules of src/ that no linter holds (style.md, "one name per concept" and "small
 * files"): every file name is used once (index.ts excepted, and the simulator's routes/X.ts,
 * which mirror the portal client's endpoints/X.ts for the same resource), and no file is over
 * 400 lines.
 */
const MAX_LINES = 400;

/** Basenames a second file may have: a simulator route beside the client's endpoint file. */
function mirrorsEndpoint(paths: readonly string[]): boolean {
  if (paths.length !== 2) return false;
  const [a, b] = [...paths].sort();
  const name = a!.split('/').pop();
  return a === `api/endpoints/${name}` && b === `simulator/routes/${name}`;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** What breaks the rules under `src`, one line each; empty when nothing does. */
function layoutProblems(src: string): string[] {
  const problems: string[] = [];
  const byName = new Map<string, string[]>();
  for (const path of tsFiles(src)) {
    const rel = relative(src, path).split('\\').join('/');
    const name = rel.split('/').pop()!;
    byName.set(name, [...(byName.get(name) ?? []), rel]);
    const text = readFileSync(path, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) {
      problems.push(`${rel}: ${lines} lines (at most ${MAX_LINES}: split it along its seams)`);
    }
  }
  for (const [name, paths] of byName) {
    if (name === 'index.ts' || paths.length === 1 || mirrorsEndpoint(paths)) continue;
    problems.push(`${name} names ${paths.length} files: ${paths.sort().join(', ')}`);
  }
  return problems.sort();
}

describe('the layout of src/', () => {
  it('uses each file name once and keeps every file within 400 lines', () => {
    const src = join(dirname(fileURLToPath(import.meta.url)), '../../src');
    expect(layoutProblems(src)).toEqual([]);
  });

  it('keeps the composition root small: src/daemon/daemon.ts builds the services and starts the workers, within 200 lines', () => {
    const text = readFileSync(
      join(dirname(fileURLToPath(import.meta.url)), '../../src/daemon/daemon.ts'),
      'utf8',
    );
    expect(text.split('\n').length - (text.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(200);
  });

  describe('the check itself', () => {
    const root = mkdtempSync(join(tmpdir(), 'layout-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    const put = (rel: string, lines: number) => {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), 'export {};\n'.repeat(lines));
    };

    it('names a duplicate name and a long file, and passes the allowed ones', () => {
      put('a/stockRules.ts', 3);
      put('b/stockRules.ts', 3);
      put('c/long.ts', 401);
      put('c/fits.ts', 400);
      put('a/index.ts', 1);
      put('b/index.ts', 1);
      put('api/endpoints/brands.ts', 2);
      put('simulator/routes/brands.ts', 2);
      put('simulator/brands.ts', 2);
      put('api/endpoints/products.ts', 2);
      put('simulator/products.ts', 2);
      expect(layoutProblems(root)).toEqual([
        'brands.ts names 3 files: api/endpoints/brands.ts, simulator/brands.ts, simulator/routes/brands.ts',
        'c/long.ts: 401 lines (at most 400: split it along its seams)',
        'products.ts names 2 files: api/endpoints/products.ts, simulator/products.ts',
        'stockRules.ts names 2 files: a/stockRules.ts, b/stockRules.ts',
      ]);
    });
  });
});
