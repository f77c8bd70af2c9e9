import type { Readable } from 'node:stream';
import type { ByteTap } from './byteTap.ts';
import { BATCH } from './recordBatches.ts';
import { FileFormatError, lowerKeys, type RecordEvent } from './records.ts';

/**
 * Largest `.json` file read: a JSON array is parsed whole, in memory. Bigger files go to failed/
 * with a reason that says so; send them as `.jsonl` (streamed, no limit) or `.csv` instead.
 * 128 MiB holds about 3 million stock objects.
 */
export const MAX_JSON_BYTES = 128 * 1024 * 1024;

/**
 * Reads a JSON array of objects. Positions are elements of the array, counted from 1. An element
 * that is not an object is a row error; anything but an array makes the file unreadable.
 */
export async function* readJsonArray(
  source: Readable,
  tap: ByteTap,
  maxBytes = MAX_JSON_BYTES,
): AsyncGenerator<RecordEvent[]> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source.pipe(tap) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      source.destroy();
      throw new FileFormatError(
        `JSON file larger than ${maxBytes} bytes; send large files as .jsonl or .csv`,
      );
    }
    chunks.push(chunk);
  }
  let text = Buffer.concat(chunks).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new FileFormatError(`not readable as JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!Array.isArray(value)) throw new FileFormatError('not a JSON array of objects');
  let events: RecordEvent[] = [];
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      events.push({ type: 'bad', line: i + 1, field: '(row)', reason: 'not a JSON object' });
    } else {
      events.push({
        type: 'record',
        line: i + 1,
        fields: lowerKeys(item as Record<string, unknown>),
      });
    }
    if (events.length >= BATCH) {
      yield events;
      events = [];
    }
  }
  if (events.length > 0) yield events;
}
