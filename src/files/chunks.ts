import type { FileHandle } from 'node:fs/promises';

/** Bytes read at a time. */
const CHUNK = 1 << 20;

/**
 * A file's content from its start, a chunk at a time, read into one buffer over and over: each
 * chunk is valid until the consumer asks for the next. (A read stream makes a new buffer per
 * chunk; with little other garbage to set off a collection, a large file's chunks piled up to
 * ~64 MiB of C heap that the allocator kept.)
 */
export async function* chunksOf(handle: FileHandle): AsyncGenerator<Buffer> {
  const buffer = Buffer.allocUnsafe(CHUNK);
  for (let position = 0; ; ) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
    if (bytesRead === 0) return;
    yield buffer.subarray(0, bytesRead);
    position += bytesRead;
  }
}
