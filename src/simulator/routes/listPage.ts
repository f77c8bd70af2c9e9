/** Builds the spec's paginated list body: data, links {first, last, prev, next}, meta. */
import type { ApiRequest } from '../context.ts';
import { type Cursor, decodeCursor, encodeCursor, type PageSlice } from '../pagination.ts';

export function cursorFrom(req: ApiRequest, kind: string): Cursor | null {
  const raw = req.query.get('cursor');
  return raw === null || raw === '' ? null : decodeCursor(raw, kind);
}

export function pageBody<T>(
  req: ApiRequest,
  slice: PageSlice,
  perPage: number,
  rowAt: (position: number) => T,
): { data: T[]; links: Record<string, string | null>; meta: Record<string, unknown> } {
  const path = `${req.url.origin}${req.url.pathname}`;
  const next = slice.next && encodeCursor(slice.next);
  const prev = slice.prev && encodeCursor(slice.prev);
  const link = (cursor: string | null) => {
    if (cursor === null) return null;
    const q = new URLSearchParams(req.query);
    q.set('cursor', cursor);
    return `${path}?${q.toString()}`;
  };
  return {
    data: slice.positions.map(rowAt),
    links: { first: null, last: null, prev: link(prev), next: link(next) },
    meta: { path, per_page: perPage, next_cursor: next, prev_cursor: prev },
  };
}
