import { cellText, type HeadCell, type HeadRow } from '../parse/head/fileHead.ts';

/**
 * What the data rows of a head say about each column: how full it is, how many distinct values
 * it has, how many read as numbers (and whole, negative, with which decimal mark), as codes, as
 * dates, as flags. Pure; the suggestion's choices are made from these and the header's names.
 */

/** A number as an ERP writes it, and what it says of the decimal mark. */
export interface NumberText {
  readonly value: number;
  /** The decimal mark it shows, when it shows one unambiguously. */
  readonly mark: '.' | ',' | undefined;
  /** `1,234` or `1.234`: thousands, or three decimals. */
  readonly ambiguous: boolean;
}

const INT = /^[+-]?\d+$/;
const TRAILING_MINUS = /^\d+(?:[.,]\d+)?-$/;
const DOT_GROUPS_COMMA = /^[+-]?\d{1,3}(?:\.\d{3})+,\d+$/;
const COMMA_GROUPS_DOT = /^[+-]?\d{1,3}(?:,\d{3})+\.\d+$/;
const ONE_MARK = /^([+-]?\d+)([.,])(\d+)$/;
const GROUPS_ONLY = /^[+-]?\d{1,3}(?:([.,])\d{3}){2,}$/;

/** Reads a cell's text as a number (whole, decimal, grouped, SAP's `3-`); undefined when it is none. */
export function readNumber(text: string): NumberText | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if (INT.test(t)) return { value: Number(t), mark: undefined, ambiguous: false };
  if (TRAILING_MINUS.test(t)) {
    const n = readNumber(t.slice(0, -1));
    return n === undefined ? undefined : { ...n, value: -n.value };
  }
  if (DOT_GROUPS_COMMA.test(t)) {
    return { value: Number(t.replaceAll('.', '').replace(',', '.')), mark: ',', ambiguous: false };
  }
  if (COMMA_GROUPS_DOT.test(t)) {
    return { value: Number(t.replaceAll(',', '')), mark: '.', ambiguous: false };
  }
  const groups = GROUPS_ONLY.exec(t);
  if (groups) {
    return {
      value: Number(t.replace(/[.,]/g, '')),
      mark: groups[1] === '.' ? ',' : '.',
      ambiguous: false,
    };
  }
  const one = ONE_MARK.exec(t);
  if (one === null) return undefined;
  const [, whole, mark, decimals] = one as unknown as [string, string, '.' | ',', string];
  const digits = whole.replace(/^[+-]/, '');
  if (decimals.length === 3 && digits.length <= 3 && digits !== '0') {
    // 1,234 or 1.234: taken as thousands for its value, telling nothing of the mark.
    return { value: Number(`${whole}${decimals}`), mark: undefined, ambiguous: true };
  }
  return { value: Number(`${whole}.${decimals}`), mark, ambiguous: false };
}

/** A cell as a number: a workbook's number as it is, text as readNumber reads it. */
export function cellNumber(cell: HeadCell): NumberText | undefined {
  if (typeof cell === 'number') return { value: cell, mark: undefined, ambiguous: false };
  if (typeof cell !== 'string') return undefined;
  return readNumber(cell);
}

export interface ColumnFacts {
  /** 0 = the first column (`A`). */
  readonly index: number;
  /** Data rows looked at, and those with a value in this column. */
  readonly rows: number;
  readonly filled: number;
  readonly distinct: number;
  /** Values read as numbers; of them, whole, negative, with a fraction that is not zeros. */
  readonly numbers: number;
  readonly wholes: number;
  readonly negatives: number;
  readonly fractions: number;
  /** Numbers showing `,` or `.` as their decimal mark; numbers that could be either. */
  readonly commaMarks: number;
  readonly dotMarks: number;
  readonly ambiguous: number;
  /** Values that are not numbers, with how often each comes (trimmed, as written). */
  readonly texts: ReadonlyMap<string, number>;
  /** Values that look like a code: no spaces, letters with digits or separators, or long digits. */
  readonly codes: number;
  /** Values holding a space (names, descriptions). */
  readonly spaced: number;
  /** Values that look like dates, and those that are 0/1, yes/no, true/false. */
  readonly dates: number;
  readonly flags: number;
  /** Whole numbers counting up by one row after row (row ids). */
  readonly counting: boolean;
  /** Mean length of the values. */
  readonly meanLength: number;
  /** The first distinct values, as written; the first with a fraction that is not zeros. */
  readonly sample: readonly string[];
  readonly fractionSamples: readonly string[];
}

const CODE = /^[\p{L}\p{N}][\p{L}\p{N}\-_./#:+]*$/u;
const DATE = /^(\d{1,4})[-/.](\d{1,2})[-/.](\d{1,4})(?:[ T].*)?$/;
const FLAGS = new Set(['0', '1', 'y', 'n', 'yes', 'no', 'true', 'false', 'x', 'ja', 'nein', 'si']);

/** Whether a value reads as a code (no spaces; a digit or separator, or capitals; or 6+ digits, or a leading 0). */
function isCode(text: string): boolean {
  if (text.length < 2 || text.length > 64 || !CODE.test(text)) return false;
  if (/^\d+$/.test(text)) return text.length >= 6 || text.startsWith('0');
  if (/^\d+([.,]\d+)?$/.test(text)) return false;
  return /[\d\-_./#:+]/.test(text) || text === text.toUpperCase();
}

/** The facts of column `index` over `rows`. */
export function columnFacts(rows: readonly HeadRow[], index: number): ColumnFacts {
  let filled = 0;
  let numbers = 0;
  let wholes = 0;
  let negatives = 0;
  let fractions = 0;
  let commaMarks = 0;
  let dotMarks = 0;
  let ambiguous = 0;
  let codes = 0;
  let spaced = 0;
  let dates = 0;
  let flags = 0;
  let length = 0;
  let counting = rows.length >= 3;
  let previous: number | undefined;
  const distinct = new Set<string>();
  const texts = new Map<string, number>();
  const sample: string[] = [];
  const fractionSamples: string[] = [];
  for (const row of rows) {
    const cell = row.cells[index];
    const text = cellText(cell);
    if (text === '') {
      counting = false;
      continue;
    }
    filled++;
    length += text.length;
    if (!distinct.has(text)) {
      distinct.add(text);
      if (sample.length < 8) sample.push(text);
    }
    if (FLAGS.has(text.toLowerCase()) || typeof cell === 'boolean') flags++;
    if (DATE.test(text)) dates++;
    if (isCode(text)) codes++;
    if (/\s/.test(text)) spaced++;
    const n = DATE.test(text) ? undefined : cellNumber(cell);
    if (n === undefined) {
      texts.set(text, (texts.get(text) ?? 0) + 1);
      counting = false;
      continue;
    }
    numbers++;
    if (n.value < 0) negatives++;
    if (Number.isInteger(n.value) || n.ambiguous) wholes++;
    else {
      fractions++;
      if (fractionSamples.length < 3) fractionSamples.push(text);
    }
    if (n.mark === ',') commaMarks++;
    if (n.mark === '.') dotMarks++;
    if (n.ambiguous) ambiguous++;
    if (counting && previous !== undefined && n.value !== previous + 1) counting = false;
    previous = n.value;
  }
  return {
    index,
    rows: rows.length,
    filled,
    distinct: distinct.size,
    numbers,
    wholes,
    negatives,
    fractions,
    commaMarks,
    dotMarks,
    ambiguous,
    texts,
    codes,
    spaced,
    dates,
    flags,
    counting: counting && numbers >= 3,
    meanLength: filled === 0 ? 0 : length / filled,
    sample,
    fractionSamples,
  };
}

/** The column's letters (0 → `A`, 26 → `AA`), as a spreadsheet names it. */
export function columnLetter(index: number): string {
  let n = index + 1;
  let out = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    out = String.fromCharCode(65 + r) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}
