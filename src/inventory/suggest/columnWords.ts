/**
 * What column names say, in the languages ERPs are used in: a name is folded (accents and case
 * dropped, camel case and punctuation made spaces: `QtyOnHand` and `qty_on_hand` are `qty on
 * hand`, `QUANTITÀ` is `quantita`) and compared with lists of terms. A term matches a name whole
 * (`Quantity`), as whole words inside it (`Reserved Quantity`), or — in scripts written without
 * spaces (Chinese, Japanese, Korean) — as part of it (`在庫数`).
 */

/** A name folded for comparing: words of letters and digits, lower case, no accents. */
export function foldName(name: string): string {
  return name
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Words of a folded name, with digits cut off their ends (`quantity1` is `quantity`). */
function words(folded: string): string[] {
  return folded
    .split(' ')
    .map((w) => w.replace(/^\d+(?=\p{L})|(?<=\p{L})\d+$/gu, ''))
    .filter((w) => w !== '');
}

const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** How a name meets a term: 'whole' (the whole name), 'part' (words of it), or undefined. */
export type Fit = 'whole' | 'part';

export function nameFit(name: string, term: string): Fit | undefined {
  const n = words(foldName(name));
  const t = words(foldName(term));
  if (t.length === 0 || n.length === 0) return undefined;
  if (n.join('') === t.join('')) return 'whole';
  if (UNSPACED.test(term)) return n.join('').includes(t.join('')) ? 'part' : undefined;
  for (let i = 0; i + t.length <= n.length; i++) {
    if (t.every((w, j) => n[i + j] === w)) return 'part';
  }
  return undefined;
}

/** A list of terms with a weight each: how strongly a name meeting one says what a column is. */
export type Terms = ReadonlyArray<readonly [term: string, weight: number]>;

/** The best weight of a name against terms: whole matches count fully, words inside it 0.7. */
export function nameWeight(name: string, terms: Terms): number {
  let best = 0;
  for (const [term, weight] of terms) {
    const f = nameFit(name, term);
    if (f === undefined) continue;
    best = Math.max(best, f === 'whole' ? weight : weight * 0.7);
  }
  return best;
}

/** Whether a name holds any of the terms (whole or as words). */
export function names(name: string, terms: readonly string[]): boolean {
  return terms.some((t) => nameFit(name, t) !== undefined);
}

/** A value folded for comparing with the word lists: trimmed, lower case, no accents. */
export function foldText(text: string): string {
  return text.trim().normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}
