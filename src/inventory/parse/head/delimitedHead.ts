import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { lineFeedsIn } from '../delimited.ts';
import { countFields, DELIMITER_CANDIDATES, isBlankLine } from '../dialect.ts';
import { DecodeStream } from '../encoding.ts';
import { FileFormatError } from '../records.ts';
import { type FileHead, HEAD_ROWS, type HeadRow, isEmptyRow } from './fileHead.ts';

/** Bytes of a delimited file read for its head (more than the 64 KiB the encoding is told from). */
export const HEAD_BYTES = 256 * 1024;

/**
 * The head of delimited text: its first HEAD_BYTES bytes decoded as the reader decodes them
 * (DecodeStream: a BOM, else UTF-8 when valid, else Windows-1252), split at the delimiter that
 * splits the most lines into the same number of fields (title rows above a header do not decide
 * it, as they would for the reader's look at line 1), then read as RFC 4180 with every row kept
 * whatever its width. Lines are counted as the reader counts them (a line feed inside quotes
 * counts). A file whose text breaks the quoting is not readable (FileFormatError), as for the
 * reader.
 */
export async function readDelimitedHead(path: string, maxRows = HEAD_ROWS): Promise<FileHead> {
  const whole = (await stat(path)).size <= HEAD_BYTES;
  const decoder = new DecodeStream('auto');
  const chunks: Buffer[] = [];
  for await (const chunk of pipeline(
    createReadStream(path, { end: HEAD_BYTES - 1 }),
    decoder,
    () => {},
  )) {
    chunks.push(chunk as Buffer);
  }
  let text = Buffer.concat(chunks).toString('utf8');
  // A head cut inside a line ends at the last whole line.
  if (!whole) text = text.slice(0, Math.max(0, text.lastIndexOf('\n') + 1));
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.at(-1) === '') lines.pop();
  const delimiter = likeliestDelimiter(lines);
  const { rows, more } = await splitRows(text, delimiter, whole, maxRows);
  return {
    format: 'csv',
    tables: [{ rows, more }],
    text: { encoding: decoder.encoding ?? 'utf-8', delimiter, lines },
  };
}

/**
 * The candidate (`,` `;` TAB `|`) that splits the most non-blank lines into one same number of
 * fields, more than one; ties go to the larger number, then to the candidates' order. `,` when
 * none splits any line.
 */
export function likeliestDelimiter(lines: readonly string[]): string {
  let best: { delimiter: string; lines: number; fields: number } | undefined;
  const sample = lines.filter((l) => !isBlankLine(l)).slice(0, HEAD_ROWS);
  for (const delimiter of DELIMITER_CANDIDATES) {
    const counts = new Map<number, number>();
    for (const line of sample) {
      const n = countFields(line, delimiter);
      if (n > 1) counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    for (const [fields, n] of counts) {
      if (best === undefined || n > best.lines || (n === best.lines && fields > best.fields)) {
        best = { delimiter, lines: n, fields };
      }
    }
  }
  return best?.delimiter ?? ',';
}

/** The rows of the text, blank ones left out, each with the line it starts on. */
async function splitRows(
  text: string,
  delimiter: string,
  whole: boolean,
  maxRows: number,
): Promise<{ rows: HeadRow[]; more: boolean }> {
  const rows: HeadRow[] = [];
  const parser = parse({
    delimiter,
    bom: false,
    relax_column_count: true,
    skip_empty_lines: false,
  });
  let nextLine = 1;
  let more = !whole;
  parser.end(text);
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const line = nextLine;
      nextLine += 1 + lineFeedsIn(record);
      if (isEmptyRow(record)) continue;
      if (rows.length >= maxRows) {
        more = true;
        break;
      }
      rows.push({ line, cells: record });
    }
  } catch (err) {
    // A head cut inside a quoted field ends with the rows before it; a whole file is unreadable.
    if (!(err instanceof CsvError)) throw err;
    if (whole || rows.length === 0) {
      throw new FileFormatError(`not readable as delimited text: ${err.message}`, { cause: err });
    }
    more = true;
  }
  return { rows, more };
}
