import { detectDelimiter } from '../parse/dialect.ts';
import { cellText, type FileHead, type HeadTable } from '../parse/head/fileHead.ts';
import { columnFacts } from './columnFacts.ts';
import {
  type Column,
  findSpread,
  holdsQuantities,
  labelWeight,
  pickConfirmations,
  pickLocation,
  pickName,
  quantityScore,
  ranked,
  type Spread,
  skuScore,
} from './columnPicks.ts';
import { QUANTITY_TERMS } from './columnVocabulary.ts';
import { names } from './columnWords.ts';
import { findLayout, type TableLayout } from './headerFind.ts';
import {
  columnRef,
  type DraftColumn,
  matchFor,
  ordered,
  type ProfileDraft,
} from './profileDraft.ts';
import { guessRules } from './rulesGuess.ts';
import { layoutNotes, showColumn } from './suggestNotes.ts';
import { valueHints } from './valueHints.ts';

/** What the suggestion made of a file's head: a profile (or none), and what it could not decide. */
export interface Inference {
  readonly profile: ProfileDraft | undefined;
  readonly notes: readonly string[];
  /** The table read (its index in the head), its layout and columns, and the columns picked. */
  readonly table: number;
  readonly layout: TableLayout | undefined;
  readonly picks: Picks;
}

export interface Picks {
  readonly sku?: Column;
  /** The quantity column, or a spread's columns. */
  readonly quantities: readonly Column[];
  readonly location?: Column;
}

/** The least SKU score of a SKU column: a unique code-like column, or a name saying so. */
const MIN_SKU_SCORE = 1.5;

/** A table read for the suggestion: its layout, its columns, and how good a stock table it looks. */
interface Read {
  readonly index: number;
  readonly table: HeadTable;
  readonly layout: TableLayout;
  readonly columns: readonly Column[];
  readonly score: number;
}

function readTable(table: HeadTable, index: number): Read {
  const layout = findLayout(table);
  const width = Math.max(
    layout.keys?.length ?? 0,
    layout.header?.cells.length ?? 0,
    ...layout.data.map((r) => r.cells.length),
  );
  const columns: Column[] = [];
  for (let i = 0; i < width; i++) {
    const name = layout.keys?.[i] ?? cellText(layout.header?.cells[i]);
    const group = layout.groups?.[i] ?? '';
    columns.push({
      index: i,
      name,
      label: group !== '' && group !== name ? `${group} ${name}`.trim() : name,
      facts: columnFacts(layout.data, i),
    });
  }
  const best = (score: (c: Column) => number) => Math.max(0, ranked(columns, score)[0]?.score ?? 0);
  return { index, table, layout, columns, score: best(skuScore) + best(quantityScore) };
}

/**
 * Infers a profile from a file's head (pure): the table (a workbook's sheet) that looks most
 * like stock, its header line (after title rows; over two rows; none), the SKU, quantity and
 * location columns or a one-column-per-location layout, the kind, and the rules its values call
 * for (rulesGuess.ts). Uses the new fields of the contract only where the file needs them: a
 * sheet other than the first, a dataLine, a column by letter or occurrence.
 */
export function inferProfile(head: FileHead, fileName: string): Inference {
  const reads = head.tables.map(readTable);
  const chosen = reads.reduce<Read | undefined>(
    (best, r) => (best === undefined || r.score > best.score ? r : best),
    undefined,
  );
  const none = (note: string): Inference => ({
    profile: undefined,
    notes: [note],
    table: 0,
    layout: undefined,
    picks: { quantities: [] },
  });
  if (chosen === undefined || chosen.layout.data.length === 0) {
    return none(
      head.format === 'xlsx'
        ? 'No worksheet holds a table: nothing to suggest a profile from.'
        : 'The file holds no rows: nothing to suggest a profile from.',
    );
  }
  const { layout, columns } = chosen;
  const positional = layout.header === undefined && layout.keys === undefined;
  const header = layout.keys ?? layout.header?.cells.map(cellText);
  const ref = (c: Column): DraftColumn => columnRef(c, header, positional);
  const shown = (c: Column) => showColumn(c, positional);
  const notes: string[] = layoutNotes(head, chosen.table, layout, reads, chosen.index);

  // A column that is no code by name or values is no SKU, even as the best of a table.
  const skus = ranked(columns, skuScore).filter((s) => s.score >= MIN_SKU_SCORE);
  const sku = skus[0]?.column;
  const others = columns.filter((c) => c !== sku);
  const location = pickLocation(others);
  const rest = others.filter((c) => c !== location);
  const quantity = lastOfName(ranked(rest, quantityScore)[0]?.column, rest);
  const spread = preferSpread(findSpread(rest), quantity, header);
  const quantities = spread ? spread.columns.map((g) => g.column) : quantity ? [quantity] : [];
  const confirmations = pickConfirmations(columns);
  const picks: Picks = {
    ...(sku === undefined ? {} : { sku }),
    quantities,
    ...(location === undefined ? {} : { location }),
  };
  const without = (note: string): Inference => ({
    profile: undefined,
    notes: [...notes, note],
    table: chosen.index,
    layout,
    picks,
  });
  const draft: ProfileDraft = { match: matchFor(fileName), columns: {} };
  if (chosen.index > 0) draft.sheet = chosen.table.sheet || chosen.index + 1;
  if (head.text !== undefined) {
    const line = positional ? layout.data[0]!.line : layout.header!.line;
    const own = detectDelimiter(head.text.lines[line - 1] ?? '');
    if (own !== head.text.delimiter) draft.delimiter = head.text.delimiter;
  }
  if (positional) draft.headerLine = 0;
  else if (layout.header !== undefined && layout.header.line !== 1) {
    draft.headerLine = layout.header.line;
  }
  if (layout.between.length > 0) draft.dataLine = layout.data[0]!.line;

  const weakQuantity =
    quantity === undefined || labelWeight(quantity.label, QUANTITY_TERMS, []) < 3;
  if (confirmations !== undefined && weakQuantity && spread === undefined) {
    draft.kind = 'confirmations';
    draft.columns = {
      order_number: ref(confirmations.order),
      ...(confirmations.carrier ? { carrier: ref(confirmations.carrier) } : {}),
      tracking_number: ref(confirmations.tracking),
    };
    notes.push(
      `Shipment confirmations: ${shown(confirmations.order)} is the order, ${shown(confirmations.tracking)} the tracking number${confirmations.carrier ? `, ${shown(confirmations.carrier)} the carrier` : ' (no carrier column found: name one, or give it as a constant)'}.`,
    );
    return { profile: ordered(draft), notes, table: chosen.index, layout, picks };
  }
  if (sku === undefined) return without('No column looks like a SKU: no profile to suggest.');
  const second = skus[1];
  if (second !== undefined && skus[0]!.score - second.score < 0.75) {
    notes.push(
      `Could not tell the SKU column for sure: ${shown(sku)} or ${shown(second.column)} (both hold codes); ${shown(sku)} is taken.`,
    );
  }
  if (quantities.length === 0) {
    const name = pickName(others);
    if (name !== undefined) {
      draft.kind = 'products';
      draft.columns = { sku: ref(sku), name: ref(name) };
      notes.push(
        `No column holds quantities, but ${shown(sku)} and ${shown(name)} name products: this looks like a products file (kind "products": the SKU and name columns, and the other fields of the API's product creation).`,
      );
      return { profile: ordered(draft), notes, table: chosen.index, layout, picks };
    }
    return without(`${shown(sku)} looks like the SKU, but no column holds quantities.`);
  }
  // A location column names centres when it holds more than one place, or says it is the centre.
  const centres =
    location !== undefined &&
    spread === undefined &&
    (location.facts.distinct > 1 || names(location.label, CENTRE_TERMS));
  draft.kind = spread !== undefined || centres ? 'dc' : 'factory';
  draft.columns.sku = ref(sku);
  if (location !== undefined && draft.kind === 'dc' && spread === undefined) {
    draft.columns.distribution_centre_code = ref(location);
    notes.push(
      `${shown(location)} names the distribution centre (${location.facts.sample.slice(0, 4).join(', ')}): map its codes to the portal's centres in the stock rules' locations, unless they are the portal's own.`,
    );
  } else if (location !== undefined && spread === undefined) {
    notes.push(
      `${shown(location)} holds one place only (${location.facts.sample[0]}): read as factory stock; for stock per centre, map it as distribution_centre_code.`,
    );
  }
  if (spread !== undefined) {
    draft.spread = Object.fromEntries(spread.columns.map((g) => [g.column.name, g.location]));
    notes.push(
      `One quantity column per place (${spread.columns.map((g) => shown(g.column)).join(', ')}): each row becomes one row per place (spread); the place names stand for centre codes — replace them with the portal's codes, or map them in the stock rules' locations.`,
    );
  } else {
    draft.columns.stock_quantity = ref(quantity!);
    if (typeof draft.columns.stock_quantity === 'object') {
      notes.push(
        `${shown(quantity!)} is named more than once: its last column is taken as the quantity (the latest figure); give another occurrence if that is not the one.`,
      );
    }
  }
  const rules = guessRules({
    columns,
    data: layout.data,
    sku,
    quantities,
    location: draft.kind === 'dc' ? location : undefined,
    ref,
    shown,
    positional,
  });
  Object.assign(draft, rules.fields);
  if (ownNames(draft)) {
    notes.push(
      'The file names its columns as the API does: it is read as it is, without a profile; this one only says so.',
    );
  }
  notes.push(...rules.notes, ...valueHints(columns, new Set([sku, ...quantities]), shown));
  return { profile: ordered(draft), notes, table: chosen.index, layout, picks };
}

/** Names that say a column is the portal's distribution centre, whatever it holds. */
const CENTRE_TERMS = [
  'distribution centre',
  'distribution center',
  'dc',
  'distribution centre code',
];

/** Whether a profile maps each field to a column of the field's own name, and says nothing else. */
function ownNames(draft: ProfileDraft): boolean {
  const own = Object.entries(draft.columns).every(
    ([field, ref]) => typeof ref === 'string' && ref.trim().toLowerCase() === field,
  );
  const rest = Object.keys(draft).filter((k) => !['match', 'kind', 'columns'].includes(k));
  return own && rest.length === 0;
}

/**
 * Of columns that share the quantity column's name (one a month, a header over two rows), the
 * last: the latest figure.
 */
function lastOfName(column: Column | undefined, columns: readonly Column[]): Column | undefined {
  if (column === undefined || column.name === '') return column;
  const name = column.name.toLowerCase();
  return columns.filter((c) => c.name.toLowerCase() === name && holdsQuantities(c.facts)).at(-1);
}

/** A spread is taken over one quantity column when that column is one of it, or no better named. */
function preferSpread(
  spread: Spread | undefined,
  quantity: Column | undefined,
  header: readonly string[] | undefined,
): Spread | undefined {
  if (spread === undefined || header === undefined) return undefined;
  // `spread` names its columns by header name: each must name one column alone.
  const named = (c: Column) =>
    c.name !== '' && header.filter((h) => h.toLowerCase() === c.name.toLowerCase()).length === 1;
  if (!spread.columns.every((g) => named(g.column))) return undefined;
  if (quantity === undefined || spread.columns.some((g) => g.column === quantity)) return spread;
  const best = Math.max(...spread.columns.map((g) => quantityScore(g.column)));
  return quantityScore(quantity) <= best + 1 ? spread : undefined;
}
