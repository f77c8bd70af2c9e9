import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, paginate } from '../../src/simulator/cursorPages.ts';

/** Walks forward to the end, then back to the start, through the pure paginator. */
function walk(total: number, perPage: number, maxScan: number, keep: (p: number) => boolean) {
  const matches = (p: number) => keep(p);
  const base = { kind: 'k', total, perPage, maxScan, matches };
  const forward: number[] = [];
  let slice = paginate({ ...base, cursor: null });
  const pages = [slice];
  forward.push(...slice.positions);
  let guard = 0;
  while (slice.next) {
    slice = paginate({ ...base, cursor: decodeCursor(encodeCursor(slice.next), 'k') });
    forward.push(...slice.positions);
    pages.push(slice);
    if (++guard > 10_000) throw new Error('loop');
  }
  const backward: number[][] = [slice.positions];
  while (slice.prev) {
    slice = paginate({ ...base, cursor: slice.prev });
    backward.unshift(slice.positions);
    if (++guard > 20_000) throw new Error('loop');
  }
  return { forward, backward: backward.flat(), pages };
}

describe('paginate (pure)', () => {
  it('loses and repeats nothing in either direction, whatever the filter and scan cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 7 }),
        (total, perPage, maxScan, modulus) => {
          const keep = (p: number) => p % modulus === 0;
          const expected = Array.from({ length: total }, (_, i) => i).filter(keep);
          const { forward, backward } = walk(total, perPage, maxScan, keep);
          expect(forward).toEqual(expected);
          expect(backward).toEqual(expected);
        },
      ),
    );
  });

  it('gives full pages without a filter and null cursors at both ends', () => {
    const first = paginate({ kind: 'k', total: 10, perPage: 4, maxScan: 1, cursor: null });
    expect(first).toMatchObject({ positions: [0, 1, 2, 3], prev: null });
    const last = paginate({
      kind: 'k',
      total: 10,
      perPage: 4,
      maxScan: 1,
      cursor: { kind: 'k', position: 7, direction: 'next' },
    });
    expect(last).toMatchObject({ positions: [8, 9], next: null });
    const back = paginate({ kind: 'k', total: 10, perPage: 4, maxScan: 1, cursor: last.prev });
    expect(back).toMatchObject({ positions: [4, 5, 6, 7] });
    const empty = paginate({ kind: 'k', total: 0, perPage: 4, maxScan: 1, cursor: null });
    expect(empty).toEqual({ positions: [], next: null, prev: null });
  });

  it('rejects cursors that are garbage or belong to another list', () => {
    expect(() => decodeCursor('!!!', 'k')).toThrow();
    expect(() =>
      decodeCursor(encodeCursor({ kind: 'other', position: 1, direction: 'next' }), 'k'),
    ).toThrow();
    expect(() =>
      decodeCursor(Buffer.from('{"k":"k","p":-1,"d":"n"}').toString('base64url'), 'k'),
    ).toThrow();
  });
});
