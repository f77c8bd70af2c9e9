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
  const lines = splitLines(source.pipe(tap) as AsyncIterable<Buffer>);
  let line = 0;
  let events: RecordEvent[] = [];
  for await (let text of lines) {
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
  if (events.length > 0) yield events;
}

/** The lines of a UTF-8 byte stream, split at LF only, a CR before the LF dropped. */
async function* splitLines(input: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  const strip = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);
  let rest = '';
  for await (const chunk of input) {
    let searchFrom = rest.length;
    rest += decoder.write(chunk);
    let start = 0;
    for (let at = rest.indexOf('\n', searchFrom); at !== -1; at = rest.indexOf('\n', searchFrom)) {
      yield strip(rest.slice(start, at));
      start = at + 1;
      searchFrom = start;
    }
    rest = rest.slice(start);
  }
  rest += decoder.end();
  if (rest !== '') yield strip(rest);
}
