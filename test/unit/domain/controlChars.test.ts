import { describe, expect, it } from 'vitest';
import { escapeControls } from '../../../src/domain/controlChars.ts';

describe('escapeControls', () => {
  it('writes every control and invisible format character as an escape', () => {
    expect(escapeControls('\x1b]0;title\x07\x1b[2J.csv')).toBe('\\x1B]0;title\\x07\\x1B[2J.csv');
    expect(escapeControls('a\tb\nc\rd\0e\x7f')).toBe('a\\tb\\nc\\rd\\x00e\\x7F');
    // C1 controls (U+009B is a CSI on terminals that take 8-bit controls), bidi, zero-width, BOM.
    expect(escapeControls('x\u009b2Jy')).toBe('x\\x9B2Jy');
    expect(escapeControls('invoice\u202efdp.csv')).toBe('invoice\\u202Efdp.csv');
    expect(escapeControls('a\u200bb\u2066c\u2028d\ufeff')).toBe('a\\u200Bb\\u2066c\\u2028d\\uFEFF');
  });

  it('leaves every other character as it is', () => {
    const plain = 'Lager_Bestand_é_日本_🙂_ $(rm -rf) \\x1B `code` <b>.csv';
    expect(escapeControls(plain)).toBe(plain);
  });
});
