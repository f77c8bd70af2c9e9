import { createReadStream } from 'node:fs';
import { ByteTap } from '../byteTap.ts';
import { readRecords } from '../index.ts';
import type { InboxFormat } from '../records.ts';
import type { StringSpill } from '../workbook/strings.ts';
import { readDelimitedHead } from './delimitedHead.ts';
import { type FileHead, HEAD_ROWS, type HeadCell, type HeadRow } from './fileHead.ts';

export interface HeadOptions {
  readonly maxRows?: number;
  /** INBOX_MAX_RECORD_BYTES: a longer record makes the file unreadable, as for the reader. */
  readonly maxRecordBytes?: number;
  /** A workbook's shared strings past the memory bound; none: such a workbook is refused. */
  readonly spillStrings?: () => StringSpill;
}

/**
 * The head of a file of any inbox format, read by that format's reader as far as the head goes:
 * delimited text (readDelimitedHead), a workbook's first worksheets (readWorkbookHead), a JSON
 * array's or a JSON Lines file's first objects (the reader itself, stopped after the head).
 * FileFormatError when the file cannot be read as its format.
 */
export async function readFileHead(
  path: string,
  format: InboxFormat,
  options: HeadOptions = {},
): Promise<FileHead> {
  const maxRows = options.maxRows ?? HEAD_ROWS;
  if (format === 'csv') return readDelimitedHead(path, maxRows);
  if (format === 'xlsx') {
    // The workbook reader's modules (its zip and XML readers) are loaded when a workbook comes,
    // as parse/index.ts loads readXlsx: a daemon that never meets one does not hold them.
    const { readWorkbookHead } = await import('./workbookHead.ts');
    return readWorkbookHead(path, { ...options, maxRows });
  }
  return readObjectsHead(path, format, maxRows, options.maxRecordBytes);
}

/**
 * The first objects of a JSON array or JSON Lines file as a table: a column per key (normalized
 * by the reader), in the order the keys were first seen; a nested value as its JSON text. Rows
 * that are not objects are left out.
 */
async function readObjectsHead(
  path: string,
  format: 'json' | 'jsonl',
  maxRows: number,
  maxRecordBytes: number | undefined,
): Promise<FileHead> {
  const objects: Array<{ line: number; fields: Record<string, unknown> }> = [];
  let more = false;
  const source = createReadStream(path);
  const events = readRecords(format, source, new ByteTap(), {
    ...(maxRecordBytes === undefined ? {} : { maxRecordBytes }),
  });
  try {
    read: for await (const batch of events) {
      for (const event of batch) {
        if (event.type !== 'record') continue;
        if (objects.length >= maxRows) {
          more = true;
          break read;
        }
        objects.push({ line: event.line, fields: event.fields });
      }
    }
  } finally {
    source.destroy();
  }
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const o of objects) {
    for (const k of Object.keys(o.fields)) {
      if (!seen.has(k)) {
        seen.add(k);
        keys.push(k);
      }
    }
  }
  const rows: HeadRow[] = objects.map((o) => ({
    line: o.line,
    cells: keys.map((k) => asCell(o.fields[k])),
  }));
  return { format, tables: [{ rows, more, keys }] };
}

function asCell(value: unknown): HeadCell {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return value;
  }
  return JSON.stringify(value);
}
