import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, globMatches } from '../../../src/domain/glob.ts';

describe('glob matcher', () => {
  it.each([
    ['LAGER_*.TXT', 'LAGER_20240501.TXT', true],
    ['LAGER_*.TXT', 'lager_20240501.txt', true],
    ['LAGER_*.TXT', 'LAGER_.TXT', true],
    ['LAGER_*.TXT', 'LAGER_1.CSV', false],
    ['LAGER_*.TXT', 'XLAGER_1.TXT', false],
    ['stock-DC-LON-*.csv', 'stock-dc-lon-2024.CSV', true],
    ['item?.csv', 'item1.csv', true],
    ['item?.csv', 'item12.csv', false],
    ['item?.csv', 'item.csv', false],
    ['item?.csv', 'itemé.csv', true],
    ['DISC-*', 'DISC-', true],
    ['DISC-*', 'disc-42', true],
    ['DISC-*', 'DIS-42', false],
    ['*', '', true],
    ['a**b', 'ab', true],
    ['a*b*c', 'a-x-b-y-c', true],
    ['a*b*c', 'a-x-c-y-b', false],
    // Regex characters are plain characters.
    ['report (1).[csv]', 'REPORT (1).[CSV]', true],
    ['a.b', 'axb', false],
    ['a+b$', 'a+b$', true],
    ['back\\slash', 'back\\slash', true],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
  ])('%s matches %s: %s', (pattern, text, expected) => {
    expect(globMatches(pattern, text)).toBe(expected);
  });

  it('spans line breaks and stays fast on pathological patterns', () => {
    expect(compileGlob('a*z')('a\nz')).toBe(true);
    const text = 'a'.repeat(20_000);
    const started = performance.now();
    expect(compileGlob('*a*a*a*a*a*a*a*b')(text)).toBe(false);
    // Not a timing assertion of speed, a guard against catastrophic backtracking (seconds+).
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('glob matcher without ?', () => {
  /** The character walk every pattern used before the fast path for patterns without `?`. */
  const walk = (pattern: string, text: string): boolean => {
    const p = Array.from(pattern.toLowerCase());
    const t = Array.from(text.toLowerCase());
    let pi = 0;
    let ti = 0;
    let star = -1;
    let resume = 0;
    while (ti < t.length) {
      const c = p[pi];
      if (c === '*') {
        star = pi++;
        resume = ti;
      } else if (c !== undefined && c === t[ti]) {
        pi++;
        ti++;
      } else if (star >= 0) {
        pi = star + 1;
        ti = ++resume;
      } else return false;
    }
    while (p[pi] === '*') pi++;
    return pi === p.length;
  };

  it('agrees with the character walk on random patterns and texts', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[ab*é]{0,8}$/),
        fc.stringMatching(/^[abAé]{0,10}$/),
        (pattern, text) => compileGlob(pattern)(text) === walk(pattern, text),
      ),
      { numRuns: 5000 },
    );
  });

  it.each([
    ['ab*ab', 'ab', false],
    ['ab*ba', 'aba', false],
    ['a*a', 'a', false],
    ['*a*a*', 'aa', true],
    ['SKU-00001*', 'sku-000012', true],
    ['*7', 'SKU-0000007', true],
    ['*7', 'SKU-0000070', false],
  ])('%s matches %s: %s', (pattern, text, expected) => {
    expect(compileGlob(pattern)(text)).toBe(expected);
  });
});
