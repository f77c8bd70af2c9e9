import { z } from 'zod';
import { type Caller, callJson } from './caller.ts';
import { BadResponseError } from './portalErrors.ts';
import type { CallOptions, CallSpec } from './request.ts';
import { pageSchema } from './schemas.ts';

/** One page of a cursor-paginated list. */
export interface Page<T> {
  readonly items: T[];
  /** The cursor this page was fetched with; undefined for the first page. */
  readonly cursor: string | undefined;
  /**
   * Cursor of the next page, null at the end. Persist it once the page is handled; a later walk
   * given `{ cursor }` resumes at the next page.
   */
  readonly nextCursor: string | null;
  readonly prevCursor: string | null;
  /** meta.per_page as the portal said, when it did. */
  readonly perPage: number | undefined;
  /** meta.total (rows in the whole list), when the portal says it; the spec does not show it. */
  readonly total: number | undefined;
}

export interface WalkOptions extends CallOptions {
  /** Start here (a saved nextCursor) instead of at the first page. */
  readonly cursor?: string | undefined;
  /** Stop after this many pages. */
  readonly maxPages?: number;
}

/** Fetches one page of a list endpoint and checks its items. */
export async function fetchPage<S extends z.ZodType>(
  caller: Caller,
  spec: Omit<CallSpec, 'resend'>,
  item: S,
  cursor: string | undefined,
  options?: CallOptions,
): Promise<Page<z.output<S>>> {
  const body = await callJson(
    caller,
    { ...spec, searchParams: { ...spec.searchParams, cursor }, resend: 'always' },
    pageSchema(item),
    options,
  );
  if (!body.meta?.next_cursor) warnUnfollowed(caller, spec, body);
  return {
    items: body.data,
    cursor,
    nextCursor: body.meta?.next_cursor ?? null,
    prevCursor: body.meta?.prev_cursor ?? null,
    perPage: body.meta?.per_page,
    total: body.meta?.total,
  };
}

/** Pages from `options.cursor` (or the first) while meta.next_cursor is set. */
export async function* walkPages<T>(
  fetch: (cursor: string | undefined, options: CallOptions) => Promise<Page<T>>,
  options: WalkOptions = {},
  where = 'list',
): AsyncGenerator<Page<T>, void, undefined> {
  let cursor = options.cursor;
  const seen = new Set<string>();
  for (let n = 0; options.maxPages === undefined || n < options.maxPages; n++) {
    const page = await fetch(cursor, options);
    yield page;
    if (page.nextCursor === null || page.nextCursor === '') return;
    if (seen.has(page.nextCursor)) {
      throw new BadResponseError(`${where}: the portal sent a cursor it had sent before`);
    }
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}

/** The items of every page, in order. */
export async function* walkItems<T>(pages: AsyncIterable<Page<T>>): AsyncGenerator<T> {
  for await (const page of pages) yield* page.items;
}

/**
 * A list the spec does not say is paginated (brands, reference data, shipments): `data` as an
 * array, or a bare array; meta.next_cursor is followed if the portal ever sends one.
 */
export async function fetchAll<S extends z.ZodType>(
  caller: Caller,
  spec: Omit<CallSpec, 'resend'>,
  item: S,
  options?: CallOptions,
): Promise<z.output<S>[]> {
  const schema = z.union([z.array(item), pageSchema(item)]);
  const out: z.output<S>[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const body = await callJson(
      caller,
      { ...spec, searchParams: { ...spec.searchParams, cursor }, resend: 'always' },
      schema,
      options,
    );
    if (Array.isArray(body)) return [...out, ...body];
    out.push(...body.data);
    const next = body.meta?.next_cursor ?? null;
    if (next === null || next === '') warnUnfollowed(caller, spec, body);
    if (next === null || next === '' || seen.has(next)) return out;
    seen.add(next);
    cursor = next;
  }
}

/**
 * An answer that says more pages exist in a way this client does not follow (a `links.next` URL
 * or page numbers without `meta.next_cursor`, as in Laravel's page-numbered lists): what was read
 * may be only the first page. Said once per route, with the portal's figures; the walk stops as
 * the spec says (no next cursor: the end).
 */
function warnUnfollowed(
  caller: Caller,
  spec: Pick<CallSpec, 'method' | 'path'>,
  body: { links?: { next?: string | null | undefined } | undefined; meta?: object | undefined },
): void {
  const meta = (body.meta ?? {}) as Record<string, unknown>;
  const page = typeof meta.current_page === 'number' ? meta.current_page : undefined;
  const last = typeof meta.last_page === 'number' ? meta.last_page : undefined;
  const byNumber = page !== undefined && last !== undefined && page < last;
  const byLink = typeof body.links?.next === 'string' && body.links.next !== '';
  if (!byNumber && !byLink) return;
  const route = `${spec.method} /${spec.path}`;
  caller.warnOnce(
    `unfollowed:${route}`,
    {
      event: 'api.list_unfollowed',
      route,
      currentPage: page,
      lastPage: last,
      total: typeof meta.total === 'number' ? meta.total : undefined,
      by: byNumber ? 'page numbers' : 'links.next',
    },
    `${route} says more pages follow (${byNumber ? `page ${page} of ${last}` : 'links.next'}), but only meta.next_cursor is followed: items beyond this page are not read`,
  );
}
