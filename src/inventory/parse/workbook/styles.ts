import { FileFormatError } from '../records.ts';
import { MAX_LISTED, readPart } from './book.ts';
import type { XmlLimits } from './xml.ts';
import type { Package } from './zip.ts';

/** What a workbook's cell styles change in how a number is read. */
export interface CellStyles {
  /** Styles that show a number as a date. */
  readonly dates: ReadonlySet<number>;
  /**
   * Styles that pad a whole number with zeros (`0000` shows 32 as `0032`) → the width: such a
   * cell is read as the text it shows, so that a numeric-looking SKU keeps its zeros.
   */
  readonly padded: ReadonlyMap<number, number>;
}

/** A number format of zeros only, two or more: a fixed-width code (`0000`, `000000`). */
const ZERO_PADDED = /^0{2,}$/;

/**
 * Which cell styles show a number as a date, and which pad it with zeros: a cell's `s` attribute
 * indexes the styles part's `cellXfs`, each naming a number format, built in (dates: ids 14–22,
 * 27–36, 45–47, 50–58) or listed in `numFmts` by its format code. A date's serial number is read
 * as a date, and a zero-padded number as its text, as Excel shows them.
 */
export async function readCellStyles(
  pkg: Package,
  part: string,
  limits: XmlLimits,
): Promise<CellStyles> {
  const formats = new Map<number, string>();
  const xfFormats: number[] = [];
  let inCellXfs = false;
  await readPart(
    pkg,
    part,
    {
      open(name, a) {
        if (name === 'numFmt') {
          if (formats.size >= MAX_LISTED) tooMany(part);
          formats.set(Number(a.numFmtId), a.formatCode ?? '');
        } else if (name === 'cellXfs') {
          inCellXfs = true;
        } else if (name === 'xf' && inCellXfs) {
          if (xfFormats.length >= MAX_LISTED) tooMany(part);
          xfFormats.push(Number(a.numFmtId ?? 0));
        }
      },
      text() {},
      close(name) {
        if (name === 'cellXfs') inCellXfs = false;
      },
    },
    limits,
  );
  const dates = new Set<number>();
  const padded = new Map<number, number>();
  xfFormats.forEach((id, index) => {
    const code = formats.get(id);
    if (code === undefined ? isBuiltInDate(id) : isDateFormat(code)) dates.add(index);
    else if (code !== undefined && ZERO_PADDED.test(code.trim()))
      padded.set(index, code.trim().length);
  });
  return { dates, padded };
}

function tooMany(part: string): never {
  throw new FileFormatError(`its part ${part} lists more than ${MAX_LISTED} styles or formats`);
}

export function isBuiltInDate(id: number): boolean {
  return (
    (id >= 14 && id <= 22) ||
    (id >= 27 && id <= 36) ||
    (id >= 45 && id <= 47) ||
    (id >= 50 && id <= 58)
  );
}

/**
 * Whether a number format code shows a date or time: it has a day, month, year, hour or second
 * token outside quoted text, escapes and bracketed colours or conditions (`[h]` elapsed hours
 * count).
 */
export function isDateFormat(code: string): boolean {
  const bare = code
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/\[(?![hms]+\])[^\]]*\]/gi, '')
    .replace(/_.|\*./g, '');
  return /[dmyhs]/i.test(bare);
}
