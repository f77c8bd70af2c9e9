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
  if (!pattern.includes('?')) return compileStarGlob(pattern);
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

/**
 * The same matching for a pattern without `?` (most of them: `DISC-*`, `*-OLD`, exact SKUs),
 * without splitting texts into characters: the text is lower-cased once and the pattern's
 * literal runs between stars are found with string searches — the first at the start, the last
 * at the end, the ones between leftmost in order (for `*` alone, leftmost is always right).
 * Set-based passes call a matcher once per key and rule, a million times and more.
 */
function compileStarGlob(pattern: string): GlobMatcher {
  const parts = pattern.toLowerCase().split('*');
  if (parts.length === 1) {
    const exact = parts[0]!;
    return (input) => input.toLowerCase() === exact;
  }
  const head = parts[0]!;
  const tail = parts.at(-1)!;
  const middle = parts.slice(1, -1).filter((m) => m !== '');
  const least = head.length + tail.length + middle.reduce((n, m) => n + m.length, 0);
  return (input) => {
    const t = input.toLowerCase();
    if (t.length < least || !t.startsWith(head) || !t.endsWith(tail)) return false;
    let at = head.length;
    const end = t.length - tail.length;
    for (const m of middle) {
      const found = t.indexOf(m, at);
      if (found < 0 || found + m.length > end) return false;
      at = found + m.length;
    }
    return true;
  };
}

/** Whether `text` matches `pattern` (compiles each time: for one-off checks). */
export function globMatches(pattern: string, text: string): boolean {
  return compileGlob(pattern)(text);
}
