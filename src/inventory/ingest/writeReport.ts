import { open } from 'node:fs/promises';
import { intoPlace } from '../../files/durable.ts';
import type { RejectedRow } from './collect.ts';
import type { FileReport } from './report.ts';

/** A value no report holds, and how JSON.stringify writes it: where the streamed list goes. */
const REJECTED_MARK = '\u0000rejected\u0000';
const REJECTED_SLOT = JSON.stringify(REJECTED_MARK);

/**
 * Writes a report atomically and durably. With `rejections` (every rejected row, read a page at
 * a time), the `rejected` list is streamed from it into the file, one row per line, instead of
 * being built as one string: a file with a million bad rows names each of them in bounded
 * memory; `rejectedOmitted` is then 0.
 */
export async function writeReportFile(
  path: string,
  report: FileReport,
  rejections?: Iterable<RejectedRow>,
): Promise<void> {
  if (rejections === undefined) {
    await intoPlace(path, (tmp) => writeAll(tmp, [`${JSON.stringify(report, null, 2)}\n`]));
    return;
  }
  const text = JSON.stringify({ ...report, rejected: REJECTED_MARK, rejectedOmitted: 0 }, null, 2);
  const at = text.indexOf(REJECTED_SLOT);
  const head = text.slice(0, at);
  const tail = `${text.slice(at + REJECTED_SLOT.length)}\n`;
  await intoPlace(path, (tmp) => writeAll(tmp, streamRejected(head, rejections, tail)));
}

function* streamRejected(
  head: string,
  rows: Iterable<RejectedRow>,
  tail: string,
): Generator<string> {
  yield `${head}[`;
  let first = true;
  let chunk = '';
  for (const r of rows) {
    chunk += `${first ? '' : ','}\n    ${JSON.stringify(r)}`;
    first = false;
    if (chunk.length >= 65_536) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}${first ? ']' : '\n  ]'}${tail}`;
}

async function writeAll(path: string, parts: Iterable<string>): Promise<void> {
  const handle = await open(path, 'w', 0o644);
  try {
    for (const part of parts) await handle.write(part);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
