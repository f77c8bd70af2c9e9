/** ASCII only: folded by toLowerCase alone (the common case, without a normalization). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range is the point
const ASCII = /^[\u0000-\u007f]*$/;

/**
 * Where Unicode's simple case folding differs from lower-casing: letters with a second lower-case
 * form (final sigma, long s, the Greek symbol variants) fold to the common one.
 */
const FOLDS: Readonly<Record<string, string>> = {
  ς: 'σ',
  ſ: 's',
  ϐ: 'β',
  ϑ: 'θ',
  ϕ: 'φ',
  ϖ: 'π',
  ϰ: 'κ',
  ϱ: 'ρ',
  ϵ: 'ε',
  ẛ: 'ṡ',
  ι: 'ι',
};
const FOLDED = new RegExp(`[${Object.keys(FOLDS).join('')}]`, 'gu');

/**
 * A column name as compared: trimmed, with Unicode case folding, so that `quantità` finds
 * `QUANTITÀ`, `ΠΟΣΌΤΗΤΑ` finds `ποσότητα` and a name written with combining accents finds the
 * same name precomposed. The fold is Unicode's simple case folding: NFC, lower case, and the
 * letters whose lower case has two forms made one. (Simple, not full: `ß` stays `ß`, so a name
 * keeps its length and is listed in reports as its file writes it, lower-cased.) ASCII names,
 * nearly all of them, take the short way.
 */
export function normalizeColumn(name: string): string {
  const trimmed = name.trim();
  if (ASCII.test(trimmed)) return trimmed.toLowerCase();
  return trimmed
    .normalize('NFC')
    .toLowerCase()
    .replace(FOLDED, (c) => FOLDS[c]!);
}
