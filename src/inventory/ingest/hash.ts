import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { chunksOf } from '../../files/chunks.ts';

/**
 * sha256 of a file's whole content (hex), from the start of an open handle. Read through one
 * reused buffer (chunksOf): with a read stream, the peak RSS of a 5M-row file was 40 MiB above a
 * 1M-row one's.
 */
export async function hashHandle(handle: FileHandle): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of chunksOf(handle)) hash.update(chunk);
  return hash.digest('hex');
}
