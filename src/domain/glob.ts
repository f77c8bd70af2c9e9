/**
 * The one glob matcher of the daemon: profile `match` patterns on inbox file names, and (later)
 * the stock rules' `sku` patterns. `*` stands for any run of characters (also none), `?` for one
 * character; everything else stands for itself, compared case-insensitively. No character
 * classes, no escapes, no `**`: operators type these in JSON files, and file names and SKUs hold
 * `[`, `]` and `\` as plain characters often enough.
 */
export type GlobMatcher = (text: string) => boolean;

/** Characters (code points) of a text, lower-cased, for comparing. */
const fold = (text: string): string[] => Array.from(text.toLowerCase());

/**
 * Compiles a pattern once. Matching is the classic two-pointer walk that returns to the last `*`
 * on a mismatch: at most (pattern length × text length) steps, never the exponential
 * backtracking a regular expression such as `.*a.*a.*b` can fall into on a long SKU.
 */
export function compileGlob(pattern: string): GlobMatcher {
  const p = fold(pattern);
  return (input) => {
    const t = fold(input);
    let pi = 0;
    let ti = 0;
    let star = -1; // position in p of the last `*` seen
    let resume = 0; // position in t that `*` is to swallow up to, next time
    while (ti < t.length) {
      const c = p[pi];
      if (c === '*') {
        star = pi++;
        resume = ti;
      } else if (c !== undefined && (c === '?' || c === t[ti])) {
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
}

/** Whether `text` matches `pattern` (compiles each time: for one-off checks). */
export function globMatches(pattern: string, text: string): boolean {
  return compileGlob(pattern)(text);
}
