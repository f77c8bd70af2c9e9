/**
 * chunksOf reads a real file of several chunks through one buffer: the chunks, copied as they
 * come, are the file; the ingest's hash over them is the file's sha256.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chunksOf } from '../../../src/files/chunks.ts';
import { hashHandle } from '../../../src/inventory/ingest/hash.ts';

const dir = mkdtempSync(join(tmpdir(), 'chunks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('chunksOf', () => {
  it('reads a file of several chunks whole, and the hash over it is the sha256 of the file', async () => {
    const content = randomBytes(2.5 * 2 ** 20 + 7);
    const path = join(dir, 'big.bin');
    writeFileSync(path, content);
    const handle = await open(path, 'r');
    try {
      const copies: Buffer[] = [];
      for await (const chunk of chunksOf(handle)) copies.push(Buffer.from(chunk));
      expect(copies.length).toBe(3);
      expect(Buffer.concat(copies).equals(content)).toBe(true);
      expect(await hashHandle(handle)).toBe(createHash('sha256').update(content).digest('hex'));
    } finally {
      await handle.close();
    }
  });
});
