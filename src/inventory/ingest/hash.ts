import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** sha256 of a file's whole content (hex), streamed from the start of an open handle. */
export async function hashHandle(handle: FileHandle): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of handle.createReadStream({ start: 0, autoClose: false })) {
    hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}
