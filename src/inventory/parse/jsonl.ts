import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { showValue } from '../validate/rows.ts';
import { BATCH } from './batches.ts';
import type { ByteTap } from './byteTap.ts';
import { lowerKeys, type RecordEvent } from './records.ts';

/**
 * Reads JSON Lines: one object per line, LF or CRLF, a BOM tolerated, blank lines skipped. A
 * line that is not a JSON object is a row error; lines are physical lines counted from 1.
 * Only LF ends a line (not a lone CR, U+2028 or U+2029 as readline would: JSON strings may hold
 * U+2028 and U+2029 unescaped, and JSON.stringify writes them so).
 */
export async function* readJsonLines(
  source: Readable,
  tap: ByteTap,
): AsyncGenerator<RecordEvent[]> {
  let line = 0;
  let events: RecordEvent[] = [];
  for await (const batch of splitLines(source.pipe(tap) as AsyncIterable<Buffer>)) {
    for (let text of batch) {
      if (events.length >= BATCH) {
        yield events;
        events = [];
      }
      line++;
      if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.trim() === '') continue;
      let item: unknown;
      try {
        item = JSON.parse(text);
      } catch {
        events.push({
          type: 'bad',
          line,
          field: '(row)',
          reason: 'not valid JSON',
          value: showValue(text),
        });
        continue;
      }
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        events.push({
          type: 'bad',
          line,
          field: '(row)',
          reason: 'not a JSON object',
          value: showValue(text),
        });
        continue;
      }
      events.push({ type: 'record', line, fields: lowerKeys(item as Record<string, unknown>) });
    }
  }
  if (events.length > 0) yield events;
}

/**
 * The lines of a UTF-8 byte stream, split at LF only, a CR before the LF dropped; the lines each
 * chunk ends, together. The pieces of a line are joined once, when it ends (a 32 MB line arriving
 * in 64 KiB chunks is not re-scanned or re-flattened per chunk).
 */
async function* splitLines(input: AsyncIterable<Buffer>): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  const strip = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);
  let pieces: string[] = [];
  for await (const chunk of input) {
    const text = decoder.write(chunk);
    const ended: string[] = [];
    let start = 0;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', start)) {
      pieces.push(text.slice(start, at));
      ended.push(strip(pieces.length === 1 ? pieces[0]! : pieces.join('')));
      pieces = [];
      start = at + 1;
    }
    if (start < text.length) pieces.push(text.slice(start));
    if (ended.length > 0) yield ended;
  }
  const last = pieces.join('') + decoder.end();
  if (last !== '') yield [strip(last)];
}
