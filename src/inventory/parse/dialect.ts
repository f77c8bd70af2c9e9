/**
 * The dialect of delimited text: which character separates the fields. Detected from the header
 * line (product contract): of `,` `;` TAB `|`, the one that splits it into the most fields, quotes
 * respected; a tie goes to `,` (then in this order). A profile may set it instead.
 */

export const DELIMITER_CANDIDATES = [',', ';', '\t', '|'] as const;

/** Fields the header line splits into at `delimiter`, delimiters inside double quotes not counted. */
export function countFields(line: string, delimiter: string): number {
  let fields = 1;
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === delimiter && !quoted) fields++;
  }
  return fields;
}

export function detectDelimiter(headerLine: string): string {
  let best: string = DELIMITER_CANDIDATES[0];
  let bestFields = countFields(headerLine, best);
  for (const d of DELIMITER_CANDIDATES.slice(1)) {
    const n = countFields(headerLine, d);
    if (n > bestFields) {
      best = d;
      bestFields = n;
    }
  }
  return best;
}

/** A line of nothing but spaces and candidate delimiters (skipped while looking for the header). */
export function isBlankLine(line: string): boolean {
  return /^[\s,;|]*$/.test(line);
}
