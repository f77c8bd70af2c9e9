import { FileFormatError, recordTooLong } from '../records.ts';
import { unescapeText } from './sharedStrings.ts';
import type { SharedStrings } from './strings.ts';
import type { XmlHandlers } from './xml.ts';

/** One worksheet row: its number and its cells' values by column (0 = A), a sparse array. */
export interface SheetRow {
  readonly number: number;
  readonly cells: unknown[];
}

/** Columns of a worksheet (A to XFD). */
export const MAX_COLUMNS = 16_384;

export interface SheetOptions {
  readonly strings: SharedStrings;
  /** Cell styles that show numbers as dates (readCellStyles). */
  readonly dateStyles: ReadonlySet<number>;
  /** Cell styles that pad whole numbers with zeros → their width (readCellStyles). */
  readonly paddedStyles?: ReadonlyMap<number, number>;
  readonly date1904: boolean;
  /** Most characters of one cell's value (or formula). */
  readonly maxCellChars: number;
  /** Most characters of the values of one row's cells, taken together. */
  readonly maxRowChars: number;
}

/**
 * Gathers a worksheet's rows from its XML (`<sheetData>`): each `<row>` (numbered by its `r`, or
 * the row after the last) with its `<c>` cells (placed by their `r`, or the column after the
 * last). Values: shared strings (`t="s"`) from the table, inline strings, formula results
 * (`t="str"`, or the number cached in `<v>`), booleans, errors as their text (`#N/A`), numbers
 * as numbers and, in a date style, as ISO dates, in a zero-padding style (`0000`) as the text
 * shown (`0032`); a formula never calculated shows as `=` and its
 * text. Cells right of `keepColumns` are passed over. Completed rows wait in `rows` until the
 * caller takes them.
 */
export class SheetScanner implements XmlHandlers {
  rows: SheetRow[] = [];
  /** The attributes read: a row's and a cell's reference, a cell's type and style. */
  readonly attributes: ReadonlySet<string> = new Set(['r', 't', 's']);
  /** Columns kept: all until the header is known, then the header's width. */
  keepColumns = MAX_COLUMNS;
  readonly #o: SheetOptions;
  #row = 0;
  #cells: unknown[] = [];
  #rowChars = 0;
  #col = -1;
  #type = 'n';
  #style = 0;
  #value = '';
  #formula = '';
  #hasValue = false;
  #hasFormula = false;
  /** What the text goes into: 0 nothing, 1 the value, 2 the formula. */
  #into = 0;
  #inlineString = false;
  #phonetic = 0;

  constructor(options: SheetOptions) {
    this.#o = options;
  }

  open(name: string, a: Record<string, string>): void {
    switch (name) {
      case 'row':
        this.#row = a.r === undefined ? this.#row + 1 : Number(a.r);
        this.#cells = [];
        this.#rowChars = 0;
        this.#col = -1;
        return;
      case 'c':
        this.#col = a.r === undefined ? this.#col + 1 : columnOf(a.r, this.#col + 1);
        this.#type = a.t ?? 'n';
        this.#style = a.s === undefined ? 0 : Number(a.s);
        this.#value = '';
        this.#formula = '';
        this.#hasValue = false;
        this.#hasFormula = false;
        return;
      case 'v':
        this.#into = 1;
        this.#hasValue = true;
        return;
      case 'f':
        this.#into = 2;
        this.#hasFormula = true;
        return;
      case 'is':
        this.#inlineString = true;
        this.#hasValue = true;
        return;
      case 'rPh':
        this.#phonetic++;
        return;
      case 't':
        if (this.#inlineString && this.#phonetic === 0) this.#into = 1;
        return;
    }
  }

  text(text: string): void {
    if (this.#into === 0) return;
    if (this.#into === 1) {
      this.#value += text;
      if (this.#value.length > this.#o.maxCellChars) this.#tooLong();
    } else {
      this.#formula += text;
      if (this.#formula.length > this.#o.maxCellChars) this.#tooLong();
    }
  }

  close(name: string): void {
    switch (name) {
      case 'v':
      case 'f':
      case 't':
        this.#into = 0;
        return;
      case 'is':
        this.#inlineString = false;
        return;
      case 'rPh':
        this.#phonetic--;
        return;
      case 'c': {
        if (this.#col < 0 || this.#col >= this.keepColumns) return;
        const value = this.#cellValue();
        if (value === undefined) return;
        this.#cells[this.#col] = value;
        this.#rowChars += typeof value === 'string' ? value.length : 16;
        if (this.#rowChars > this.#o.maxRowChars)
          throw recordTooLong(this.#row, this.#o.maxRowChars);
        return;
      }
      case 'row':
        this.rows.push({ number: this.#row, cells: this.#cells });
        return;
    }
  }

  #cellValue(): unknown {
    const v = this.#value;
    switch (this.#type) {
      case 's': {
        if (!this.#hasValue) return undefined;
        const text = this.#o.strings.get(Number(v));
        if (text === undefined) {
          throw new FileFormatError(`row ${this.#row}: shared string ${v.trim()} does not exist`);
        }
        return text;
      }
      case 'inlineStr':
      case 'str':
        return this.#hasValue ? unescapeText(v) : this.#uncalculated();
      case 'b':
        return this.#hasValue
          ? v.trim() === '1' || v.trim().toLowerCase() === 'true'
          : this.#uncalculated();
      case 'e':
      case 'd':
        return this.#hasValue ? v.trim() : this.#uncalculated();
      default: {
        if (!this.#hasValue || v.trim() === '') return this.#uncalculated();
        const n = Number(v);
        if (Number.isNaN(n)) return v;
        if (this.#o.dateStyles.has(this.#style)) return isoDate(n, this.#o.date1904);
        const width = this.#o.paddedStyles?.get(this.#style);
        return width !== undefined && Number.isSafeInteger(n) && n >= 0
          ? String(n).padStart(width, '0')
          : n;
      }
    }
  }

  /** A cell without a value: empty, or a formula never calculated (shown as its text). */
  #uncalculated(): unknown {
    return this.#hasFormula && this.#formula !== '' ? `=${this.#formula}` : undefined;
  }

  #tooLong(): never {
    throw new FileFormatError(
      `row ${this.#row}: a cell longer than ${this.#o.maxCellChars} characters (the INBOX_MAX_RECORD_BYTES limit)`,
    );
  }
}

/** The column (0 = A) of a cell reference (`AB12` → 27); `fallback` when it names none. */
export function columnOf(ref: string, fallback: number): number {
  let n = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i) & ~32; // upper case
    if (c < 65 || c > 90) break;
    n = n * 26 + (c - 64);
  }
  return i === 0 ? fallback : n - 1;
}

/** Milliseconds from 1970 to the day before 1900-01-01 as Excel counts (its 1900 leap-day bug included). */
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);
const DAY_MS = 86_400_000;

/** A date cell's serial number as `YYYY-MM-DD`, or the full ISO time when it has a time of day. */
export function isoDate(serial: number, date1904: boolean): string {
  const ms = Math.round(serial * DAY_MS) + (date1904 ? EPOCH_1904 : EPOCH_1900);
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return String(serial);
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}
