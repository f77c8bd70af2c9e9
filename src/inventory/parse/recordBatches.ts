import type { Readable } from 'node:stream';

/** Largest batch handed on at once. */
export const BATCH = 4096;

/**
 * Reads an object-mode stream in batches: everything buffered at the moment, up to BATCH items.
 * One await per batch instead of one per item keeps the per-row cost of large files low.
 */
export async function* readBatches<T>(stream: Readable): AsyncGenerator<T[]> {
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
      while (batch.length < BATCH) {
        const item = stream.read() as T | null;
        if (item === null) break;
        batch.push(item);
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
