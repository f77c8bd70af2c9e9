import { cellText, type FileHead, type HeadTable } from '../parse/head/fileHead.ts';
import { normalizeColumn } from '../parse/header.ts';
import { columnLetter } from './columnFacts.ts';
import type { Column } from './columnPicks.ts';
import type { TableLayout } from './headerFind.ts';

/** How a note names a column: its header name, else its letter (its position without a header). */
export function showColumn(c: Column, positional: boolean): string {
  if (positional) return `column ${c.index + 1} (${columnLetter(c.index)})`;
  return c.name === '' ? `column ${columnLetter(c.index)}` : `"${c.name}"`;
}

/** What a table's layout says in sentences: the sheet, title rows, a header over two rows, notes under it, empty or repeated header cells. */
export function layoutNotes(
  head: FileHead,
  table: HeadTable,
  layout: TableLayout,
  reads: ReadonlyArray<{ readonly table: HeadTable; readonly score: number }>,
  index: number,
): string[] {
  const notes: string[] = [];
  const unit = head.format === 'xlsx' ? 'row' : 'line';
  if (head.format === 'xlsx') {
    const first = reads[0]!.table.sheet ?? '';
    if (index > 0) {
      notes.push(
        `The stock is on sheet "${table.sheet}" (${ordinal(index + 1)}), not on the first sheet "${first}".`,
      );
    } else if (reads.length > 1) {
      notes.push(`Of ${reads.length} sheets, the first ("${first}") holds the stock.`);
    }
    if ((head.sheetsNotRead ?? 0) > 0) {
      notes.push(
        `Only the first ${reads.length} sheets were looked at (${head.sheetsNotRead} more).`,
      );
    }
  }
  if (layout.header === undefined && layout.keys === undefined) {
    notes.push(
      `The first ${unit} holds data, not column names: the file has no header (headerLine 0), its columns are named by position.`,
    );
    return notes;
  }
  if (layout.header === undefined) return notes;
  // Under a header over two rows, the row right above it labels groups; the others are titles.
  const titles =
    layout.groups !== undefined && layout.between.length === 0
      ? layout.above.slice(0, -1)
      : layout.above;
  if (titles.length > 0) {
    notes.push(
      `The header is on ${unit} ${layout.header.line}; ${titles.length === 1 ? `${unit} ${titles[0]!.line} above it is a title` : `${unit}s ${titles.map((r) => r.line).join(', ')} above it are a title`}, left out.`,
    );
  }
  if (layout.groups !== undefined) {
    const other = layout.between[0] ?? layout.above.at(-1);
    notes.push(
      `The header spans two ${unit}s; ${unit} ${layout.header.line} names the columns in the profile${other ? ` (${unit} ${other.line} labels groups of them, read here only to tell what they hold)` : ''}.`,
    );
  }
  const notesUnder = layout.between.filter(
    (r) => r !== layout.between[0] || layout.groups === undefined,
  );
  if (layout.between.length > 0) {
    notes.push(
      `The data starts on ${unit} ${layout.data[0]?.line}${notesUnder.length > 0 ? `, after notes under the header (${unit} ${notesUnder.map((r) => r.line).join(', ')})` : ''}: dataLine.`,
    );
  }
  const names = layout.header.cells.map(cellText);
  const empty = names.flatMap((n, i) => (n === '' && hasData(layout, i) ? [columnLetter(i)] : []));
  if (empty.length > 0) {
    notes.push(
      `Column${empty.length === 1 ? '' : 's'} ${empty.join(', ')} ha${empty.length === 1 ? 's' : 've'} no name in the header: a profile reaches ${empty.length === 1 ? 'it' : 'them'} by letter.`,
    );
  }
  const counts = new Map<string, number>();
  for (const n of names)
    if (n !== '') counts.set(normalizeColumn(n), (counts.get(normalizeColumn(n)) ?? 0) + 1);
  const repeated = [...counts]
    .filter(([, n]) => n > 1)
    .map(([name, n]) => `"${name}" (${n} times)`);
  if (repeated.length > 0) {
    notes.push(
      `The header repeats ${repeated.join(', ')}: a profile reaches such a column by its occurrence.`,
    );
  }
  return notes;
}

function hasData(layout: TableLayout, column: number): boolean {
  return layout.data.some((r) => cellText(r.cells[column]) !== '');
}

const ordinal = (n: number) =>
  n === 2 ? 'the second' : n === 3 ? 'the third' : `sheet ${n} in tab order`;
