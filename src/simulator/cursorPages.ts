/**
 * Cursor pagination over positions 0..total-1 (products, DC stock records, factory stock).
 *
 * A cursor is base64url JSON {k: list kind, p: position, d: 'n' | 'p'}: 'n' means "rows after
 * position p", 'p' means "rows before position p". A page costs O(page size) without filters;
 * with filters it scans at most `maxScan` positions, and a page cut short by that cap carries a
 * next (or prev) cursor where the scan stopped — it may hold fewer rows than per_page, even none.
 */
import { invalidParameter } from './httpError.ts';

export type CursorDirection = 'next' | 'prev';

export interface Cursor {
  kind: string;
  position: number;
  direction: CursorDirection;
  /** When the page that handed it out was answered (simulator clock, ms); absent in old cursors. */
  issuedAt?: number | undefined;
}

export interface PageSlice {
  /** Positions of the page, ascending. */
  positions: number[];
  next: Cursor | null;
  prev: Cursor | null;
}

export interface PageRequest {
  kind: string;
  total: number;
  perPage: number;
  cursor: Cursor | null;
  /** Row filter; when absent every position matches. */
  matches?: ((position: number) => boolean) | undefined;
  /** Most positions a filtered request examines. */
  maxScan: number;
}

export function encodeCursor(c: Cursor, issuedAt?: number): string {
  const json = JSON.stringify({
    k: c.kind,
    p: c.position,
    d: c.direction === 'next' ? 'n' : 'p',
    ...(issuedAt === undefined ? {} : { t: issuedAt }),
  });
  return Buffer.from(json).toString('base64url');
}

/** Decodes a cursor of the given list kind; throws 400 invalid_parameter (field cursor). */
export function decodeCursor(text: string, kind: string): Cursor {
  const bad = () => invalidParameter('cursor', 'The cursor is invalid.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (typeof parsed !== 'object' || parsed === null) throw bad();
  const { k, p, d, t } = parsed as Record<string, unknown>;
  if (k !== kind || typeof p !== 'number' || !Number.isInteger(p) || p < 0) throw bad();
  if (d !== 'n' && d !== 'p') throw bad();
  if (t !== undefined && typeof t !== 'number') throw bad();
  return { kind, position: p, direction: d === 'n' ? 'next' : 'prev', issuedAt: t };
}

export function paginate(req: PageRequest): PageSlice {
  const { cursor, perPage, total, kind } = req;
  const matches = req.matches;
  const limit = matches ? req.maxScan : Number.POSITIVE_INFINITY;
  const found: number[] = [];
  let scanned = 0;

  if (!cursor || cursor.direction === 'next') {
    const start = cursor ? cursor.position + 1 : 0;
    let p = start;
    for (; p < total && found.length <= perPage && scanned < limit; p++, scanned++) {
      if (!matches || matches(p)) found.push(p);
    }
    const positions = found.slice(0, perPage);
    let next: Cursor | null = null;
    if (found.length > perPage)
      next = { kind, position: positions[positions.length - 1]!, direction: 'next' };
    else if (p < total) next = { kind, position: p - 1, direction: 'next' };
    const prev: Cursor | null =
      cursor && start > 0
        ? { kind, position: positions[0] ?? Math.min(start, total), direction: 'prev' }
        : null;
    return { positions, next, prev };
  }

  const end = Math.min(cursor.position, total) - 1;
  let p = end;
  for (; p >= 0 && found.length <= perPage && scanned < limit; p--, scanned++) {
    if (!matches || matches(p)) found.push(p);
  }
  const positions = found.slice(0, perPage).reverse();
  let prev: Cursor | null = null;
  if (found.length > perPage) prev = { kind, position: positions[0]!, direction: 'prev' };
  else if (p >= 0) prev = { kind, position: p + 1, direction: 'prev' };
  const next: Cursor = {
    kind,
    position: positions[positions.length - 1] ?? Math.max(end, -1),
    direction: 'next',
  };
  return { positions, next: next.position < 0 ? null : next, prev };
}
