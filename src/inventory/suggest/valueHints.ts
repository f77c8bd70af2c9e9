import type { Column } from './columnPicks.ts';
import { EXPIRY_TERMS, UNIT_TERMS } from './columnVocabulary.ts';
import { names } from './columnWords.ts';

/**
 * Sentences about columns a profile may want a rule for that only an expression can say (lots
 * past a date, quantities in several units): told, not put in the profile.
 */
export function valueHints(
  columns: readonly Column[],
  taken: ReadonlySet<Column>,
  shown: (c: Column) => string,
): string[] {
  const notes: string[] = [];
  for (const c of columns) {
    if (taken.has(c) || c.facts.filled === 0) continue;
    if (names(c.label, UNIT_TERMS) && c.facts.texts.size > 1) {
      const units = [...c.facts.texts.keys()].slice(0, 6).join(', ');
      notes.push(
        `Quantities are in more than one unit (${shown(c)}: ${units}): rows in another unit than the portal counts in can be skipped with a when on ${shown(c)}.`,
      );
    }
    if (names(c.label, EXPIRY_TERMS) && c.facts.dates > 0) {
      const layout = dateLayout(c.facts.sample);
      const name = c.name.replaceAll("'", "\\'");
      notes.push(
        layout === undefined
          ? `${shown(c)} holds dates (${c.facts.sample.slice(0, 2).join(', ')}) whose layout could not be told (day or month first): lots past their date can be offered as 0 with a when of if date(row['${name}'], LAYOUT) < today().`
          : `${shown(c)} holds dates (${layout}): lots past their date can be offered as 0 with { "if": "row['${name}'] != '' && date(row['${name}'], '${layout}') < today()", "then": "zero" } in when.`,
      );
    }
  }
  return notes;
}

/** The layout of dates like `31/01/2025` or `2025-01-31`: DD/MM/YYYY when a first part is over 12, MM/DD/YYYY when a second one is. */
export function dateLayout(values: readonly string[]): string | undefined {
  let dayFirst = false;
  let monthFirst = false;
  let sep = '';
  for (const v of values) {
    const iso = /^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})/.exec(v);
    if (iso) return `YYYY${iso[2]}MM${iso[2]}DD`;
    const m = /^(\d{1,2})([-/.])(\d{1,2})\2(\d{2,4})/.exec(v);
    if (m === null) continue;
    sep = m[2]!;
    if (Number(m[1]) > 12) dayFirst = true;
    if (Number(m[3]) > 12) monthFirst = true;
  }
  if (dayFirst === monthFirst) return undefined;
  return dayFirst ? `DD${sep}MM${sep}YYYY` : `MM${sep}DD${sep}YYYY`;
}
