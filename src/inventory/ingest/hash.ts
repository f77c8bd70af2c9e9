import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** Bytes read at a time. */
const CHUNK = 1 << 20;

/**
 * sha256 of a file's whole content (hex), read from the start of an open handle into one buffer,
 * over and over. (A read stream makes a new buffer per chunk; with next to no other garbage to
 * set off a collection, a large file's chunks piled up to ~64 MiB of C heap before they were
 * freed, and the allocator kept the space: the peak RSS of a 5M-row file was 40 MiB above a
 * 1M-row one's.)
 */
export async function hashHandle(handle: FileHandle): Promise<string> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK);
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.digest('hex');
}
