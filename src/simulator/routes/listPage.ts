/** Builds the spec's paginated list body: data, links {first, last, prev, next}, meta. */
import type { ApiContext, ApiRequest } from '../context.ts';
import { type Cursor, decodeCursor, encodeCursor, type PageSlice } from '../cursorPages.ts';
import { invalidParameter } from '../httpError.ts';

/**
 * The request's cursor, or null. With the `cursorTtlMs` knob, a cursor handed out longer ago
 * than that (simulator clock) is refused: 400 `invalid_parameter`, field `cursor`.
 */
export function cursorFrom(req: ApiRequest, kind: string, ctx: ApiContext): Cursor | null {
  const raw = req.query.get('cursor');
  if (raw === null || raw === '') return null;
  const cursor = decodeCursor(raw, kind);
  const ttl = ctx.knobs().cursorTtlMs;
  if (ttl !== null && cursor.issuedAt !== undefined && ctx.now() - cursor.issuedAt > ttl) {
    throw invalidParameter('cursor', 'The cursor has expired.');
  }
  return cursor;
}

export function pageBody<T>(
  req: ApiRequest,
  slice: PageSlice,
  perPage: number,
  rowAt: (position: number) => T,
  ctx: ApiContext,
  /** Rows in the whole list: sent as meta.total with the `listTotals` knob (not in the spec). */
  total?: number,
): { data: T[]; links: Record<string, string | null>; meta: Record<string, unknown> } {
  const path = `${req.url.origin}${req.url.pathname}`;
  const now = ctx.now();
  const next = slice.next && encodeCursor(slice.next, now);
  const prev = slice.prev && encodeCursor(slice.prev, now);
  const link = (cursor: string | null) => {
    if (cursor === null) return null;
    const q = new URLSearchParams(req.query);
    q.set('cursor', cursor);
    return `${path}?${q.toString()}`;
  };
  const withTotal = total !== undefined && ctx.knobs().listTotals;
  return {
    data: slice.positions.map(rowAt),
    links: { first: null, last: null, prev: link(prev), next: link(next) },
    meta: {
      path,
      per_page: perPage,
      next_cursor: next,
      prev_cursor: prev,
      ...(withTotal ? { total } : {}),
    },
  };
}
