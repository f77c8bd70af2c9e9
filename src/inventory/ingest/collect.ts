import type { Readable } from 'node:stream';
import { ByteTap, FileFormatError } from '../parse/index.ts';
import { createYielder } from '../parse/yielder.ts';
import { Collector } from './collector.ts';
import type { CollectedFile, CollectOptions, RejectedRow, UnreadableFile } from './collectTypes.ts';
import {
  type DuplicateKey,
  MAX_DUPLICATE_KEYS_LISTED,
  MAX_LINES_PER_DUPLICATE,
} from './rowHandlers.ts';

/** The repeated keys a report lists: worked out by the staging worker thread, if one wrote the set. */
const DUPLICATES_LISTED = { keys: MAX_DUPLICATE_KEYS_LISTED, lines: MAX_LINES_PER_DUPLICATE };

export type { CollectedFile, CollectOptions, DuplicateKey, RejectedRow, UnreadableFile };

/**
 * Reads, checks and gathers one inbox file: no I/O but reading `source` (and a DC list refresh).
 * A small driver: the header or the first object sets the kind, then each row goes to the
 * handler of its kind (rowHandlers.ts: stock, confirmations). Returns the accepted rows, the
 * rejected ones with their reasons, duplicates, ignored columns; or why the whole file cannot be
 * taken. Throws only for I/O errors and DcListUnavailableError.
 */
export async function collectFile(
  source: Readable,
  options: CollectOptions,
): Promise<CollectedFile | UnreadableFile> {
  const tap = new ByteTap();
  const c = new Collector(options);
  const yielder = createYielder();
  // The rows are all staged (a worker thread writing them is done) before the result is made.
  const staged = async () => {
    try {
      await c.staged?.finish(DUPLICATES_LISTED);
    } catch (err) {
      c.staged?.discard();
      throw err;
    }
  };
  const fail = async (reason: string): Promise<UnreadableFile> => {
    // A workbook read from its open file never reads `source`; destroying a stream of a
    // FileHandle would close the handle under its owner.
    if (options.workbook?.file === undefined || options.format !== 'xlsx') source.destroy();
    await staged();
    return c.unreadable(reason, undefined);
  };
  // The clock is read every 32 records, not each one (a million reads of it cost 30–40 ms).
  let events = 0;
  let stopped = false;
  try {
    read: for await (const batch of c.read(source, tap)) {
      for (const event of batch) {
        if ((++events & 31) === 0 && yielder.due()) {
          c.flush();
          await yielder.pause();
        }
        if (event.type === 'columns') {
          const problem = c.header(event.columns);
          if (problem !== undefined) return await fail(problem);
          continue;
        }
        if (c.rowsRead === options.maxRows) {
          stopped = true;
          break read;
        }
        c.rowsRead++;
        if (options.onProgress && c.rowsRead % 10_000 === 0) options.onProgress(c.rowsRead);
        if (event.type === 'bad') {
          const { line, field, reason, value } = event;
          c.reject(line, value === undefined ? { field, reason } : { field, reason, value });
          continue;
        }
        const fields = c.mapped(event.fields);
        const handler = c.handlerOf(event.line, fields);
        if (typeof handler === 'string') return await fail(handler);
        if (handler === undefined) continue;
        const pending = handler.take(event.line, fields);
        if (pending !== undefined) await pending;
        if (options.onRow !== undefined && 'skipped' in handler) options.onRow(event.line, handler);
      }
      c.flush();
      // A worker thread staging the rows may ask the reader to wait for it.
      const staging = c.staged?.ready();
      if (staging !== undefined) await staging;
    }
  } catch (err) {
    if (err instanceof FileFormatError) {
      await staged();
      return c.unreadable(tap.bytes === 0 ? 'empty file' : err.message, undefined);
    }
    c.staged?.discard();
    throw err;
  }
  await staged();
  if (stopped && (options.workbook?.file === undefined || options.format !== 'xlsx')) {
    source.destroy();
  }
  const hash = stopped ? undefined : tap.digest();
  if (tap.bytes === 0) return c.unreadable('empty file', hash);
  if (c.kind === undefined || c.handler === undefined) {
    if (options.format === 'xlsx')
      return c.unreadable('no header row (the first worksheet holds only blank rows)', hash);
    if (!c.objects) return c.unreadable('no header row (the file holds only blank lines)', hash);
    if (c.rowsRead === 0) return c.unreadable('no data rows', hash);
    return c.unreadable('no row names a kind', hash);
  }
  return c.collected(hash);
}

/**
 * Why a read file has nothing to apply, or undefined when it has: no row accepted and none kept
 * (a row a profile keeps names its key, which counts for a full export).
 */
export function nothingToApply(c: CollectedFile): string | undefined {
  if (c.rowsAccepted > 0 || (c.kept ?? 0) > 0) return undefined;
  return (c.skipped ?? 0) > 0
    ? 'no row to apply: every row was rejected or left out by the profile'
    : 'every row was rejected';
}
