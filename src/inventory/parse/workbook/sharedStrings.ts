import { FileFormatError } from '../records.ts';
import { readPart } from './book.ts';
import type { SharedStrings } from './strings.ts';
import type { XmlLimits } from './xml.ts';
import type { Package } from './zip.ts';

/** The shared strings' elements carry nothing the reader needs in their attributes. */
const NO_ATTRIBUTES: ReadonlySet<string> = new Set();

/**
 * Reads the shared-strings part into `table`, one string per `<si>`: its text, or the texts of
 * its rich-text runs joined; phonetic runs (`<rPh>`, a reading aid) are no part of the value.
 * A string longer than `maxChars` makes the file unreadable.
 */
export async function readSharedStrings(
  pkg: Package,
  part: string,
  table: SharedStrings,
  maxChars: number,
  limits: XmlLimits,
): Promise<void> {
  let text = '';
  let inText = false;
  let phonetic = 0;
  await readPart(
    pkg,
    part,
    {
      attributes: NO_ATTRIBUTES,
      open(name) {
        if (name === 'si') text = '';
        else if (name === 'rPh') phonetic++;
        else if (name === 't' && phonetic === 0) inText = true;
      },
      text(t) {
        if (!inText) return;
        text += t;
        if (text.length > maxChars) {
          throw new FileFormatError(
            `its shared string ${table.size} is longer than ${maxChars} characters (the INBOX_MAX_RECORD_BYTES limit)`,
          );
        }
      },
      close(name) {
        if (name === 't') inText = false;
        else if (name === 'rPh') phonetic--;
        else if (name === 'si') table.add(unescapeText(text));
      },
    },
    limits,
  );
  table.finish();
}

/**
 * Text as the spreadsheet means it: `_xHHHH_` stands for the character U+HHHH (how OOXML writes
 * characters XML cannot hold, such as a carriage return as `_x000D_`), `_x005F_` for `_`.
 */
export function unescapeText(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}
