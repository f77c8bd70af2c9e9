import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { showValue } from '../validate/rows.ts';
import { BATCH } from './batches.ts';
import type { ByteTap } from './byteTap.ts';
import { lowerKeys, type RecordEvent } from './records.ts';

/**
 * Reads JSON Lines: one object per line, LF or CRLF, a BOM tolerated, blank lines skipped. A
 * line that is not a JSON object is a row error; lines are physical lines counted from 1.
 */
export async function* readJsonLines(
  source: Readable,
  tap: ByteTap,
): AsyncGenerator<RecordEvent[]> {
  const lines = createInterface({ input: source.pipe(tap), crlfDelay: Number.POSITIVE_INFINITY });
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
