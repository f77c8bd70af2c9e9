import { describe, expect, it } from 'vitest';
import {
  bomEncoding,
  chooseEncoding,
  DETECT_BYTES,
  DecodeStream,
  isValidUtf8,
} from '../../../src/inventory/parse/encoding.ts';
import { chunked, cp1252, utf16be, utf16le } from './helpers.ts';

async function decode(bytes: Buffer, size: number, choice?: Parameters<typeof chooseEncoding>[2]) {
  const decoder = new DecodeStream(choice);
  const out: Buffer[] = [];
  for await (const piece of chunked(bytes, size).pipe(decoder)) out.push(piece as Buffer);
  return { text: Buffer.concat(out).toString('utf8'), encoding: decoder.encoding };
}

describe('encoding detection', () => {
  it('lets a byte-order mark decide', () => {
    expect(bomEncoding(Buffer.from([0xef, 0xbb, 0xbf, 0x41]))).toBe('utf-8');
    expect(bomEncoding(Buffer.from([0xff, 0xfe, 0x41, 0]))).toBe('utf-16le');
    expect(bomEncoding(Buffer.from([0xfe, 0xff, 0, 0x41]))).toBe('utf-16be');
    expect(bomEncoding(Buffer.from('sku'))).toBeUndefined();
    // A BOM wins over a profile's choice.
    expect(chooseEncoding(Buffer.from([0xff, 0xfe, 0x41, 0]), true, 'windows-1252')).toBe(
      'utf-16le',
    );
  });

  it('takes valid UTF-8 as UTF-8 and anything else as Windows-1252', () => {
    expect(chooseEncoding(Buffer.from('Menge;Größe\n'), true)).toBe('utf-8');
    expect(chooseEncoding(cp1252('Menge;Größe\n'), true)).toBe('windows-1252');
    expect(chooseEncoding(Buffer.from('plain ascii'), true)).toBe('utf-8');
  });

  it('does not hold a sequence cut by the end of the 64 KiB window against the file', () => {
    const text = Buffer.from(`${'a'.repeat(DETECT_BYTES - 1)}ä`);
    const window = text.subarray(0, DETECT_BYTES); // ends with the first byte of ä
    expect(isValidUtf8(window, false)).toBe(true);
    expect(isValidUtf8(window, true)).toBe(false);
  });

  it('follows a forced encoding, and reads iso-8859-1 as Windows-1252', () => {
    expect(chooseEncoding(Buffer.from('abc'), true, 'utf-16le')).toBe('utf-16le');
    expect(chooseEncoding(Buffer.from('abc'), true, 'iso-8859-1')).toBe('windows-1252');
  });
});

describe('DecodeStream', () => {
  const text = 'Artikelnr;Menge;Größe\r\nÄ-1;5;€ „x“\n';

  it.each([1, 2, 3, 7, 1024])(
    'decodes UTF-8 cut every %i bytes, with and without BOM',
    async (size) => {
      expect(await decode(Buffer.from(text), size)).toEqual({ text, encoding: 'utf-8' });
      const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
      expect(await decode(bom, size)).toEqual({ text, encoding: 'utf-8' });
    },
  );

  it.each([1, 3, 5])(
    'decodes UTF-16LE and UTF-16BE cut every %i bytes (odd cuts split code units)',
    async (size) => {
      const withPair = `${text}emoji 😀\n`; // a surrogate pair, cut in the middle too
      expect(await decode(utf16le(withPair), size)).toEqual({
        text: withPair,
        encoding: 'utf-16le',
      });
      expect(await decode(utf16be(withPair), size)).toEqual({
        text: withPair,
        encoding: 'utf-16be',
      });
    },
  );

  it('decodes Windows-1252, also past the detection window', async () => {
    const long = `${'x;1\n'.repeat(20_000)}Größe;€\n`;
    expect(await decode(cp1252(`Größe;Menge\n${long}`), 4096)).toEqual({
      text: `Größe;Menge\n${long}`,
      encoding: 'windows-1252',
    });
  });

  it('turns invalid bytes after a valid first 64 KiB into U+FFFD, keeping line feeds', async () => {
    const bytes = Buffer.concat([
      Buffer.from('a\n'.repeat(DETECT_BYTES)),
      Buffer.from([0xff, 0x0a]),
    ]);
    const { text: out, encoding } = await decode(bytes, 4096);
    expect(encoding).toBe('utf-8');
    expect(out.endsWith('\ufffd\n')).toBe(true);
    expect(out.split('\n').length).toBe(DETECT_BYTES + 2);
  });

  it('reads an empty stream as empty UTF-8', async () => {
    expect(await decode(Buffer.alloc(0), 10)).toEqual({ text: '', encoding: 'utf-8' });
  });
});
