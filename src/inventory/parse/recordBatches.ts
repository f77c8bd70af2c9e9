import type { Readable } from 'node:stream';

/** Largest batch handed on at once. */
export const BATCH = 4096;

/**
 * Most bytes of input (or fields, for the readers that count fields) behind one batch: a batch
 * ends at whichever of BATCH and this comes first, so that wide records (a JSON object of 60,000
 * keys, a row of 250,000 fields) are not held 4096 at a time.
 */
export const BATCH_BYTES = 1024 * 1024;

/**
 * The batch of the JSON readers: each event there holds two fresh objects (the parsed one and
 * its lower-cased copy), and a batch alive across a young-generation collection is promoted to
 * the old one. 4096 empty objects at a time took a 32 MiB file of `{}` to 349 MiB RSS; 1024, 154.
 */
export const SMALL_BATCH = 1024;

/**
 * Reads an object-mode stream in batches: everything buffered at the moment, up to BATCH items
 * or, with `weigh`, up to BATCH_BYTES of their weight (a record's fields, say). One await per
 * batch instead of one per item keeps the per-row cost of large files low.
 */
export async function* readBatches<T>(
  stream: Readable,
  weigh?: (item: T) => number,
  most = BATCH,
): AsyncGenerator<T[]> {
  let error: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const onEnd = () => {
    ended = true;
    notify();
  };
  const onError = (err: unknown) => {
    error = err;
    notify();
  };
  stream.on('readable', notify);
  stream.once('end', onEnd);
  stream.once('error', onError);
  try {
    for (;;) {
      if (error !== undefined) throw error;
      const batch: T[] = [];
      let weight = 0;
      while (batch.length < most && weight < BATCH_BYTES) {
        const item = stream.read() as T | null;
        if (item === null) break;
        batch.push(item);
        if (weigh !== undefined) weight += weigh(item);
      }
      if (batch.length > 0) {
        yield batch;
        continue;
      }
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    stream.off('readable', notify);
    stream.off('end', onEnd);
    stream.off('error', onError);
    if (!ended) stream.destroy();
  }
}
