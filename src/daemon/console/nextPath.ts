/**
 * Where the login page sends a browser once the password is right: a page of this console,
 * never another site (product contract: "the console's login redirects only to its own pages").
 *
 * Browsers read more than a plain path as another site: `//evil.example`, `/\evil.example` (a
 * backslash is a slash to them), `/<TAB>/evil.example` (tabs and newlines are dropped from URLs),
 * and `/a/../..//evil.example` once its dots are resolved. A newline in a Location header is
 * refused by Node (a 500). So `next` is taken only when it is printable ASCII without a
 * backslash, resolves to a path of this origin that does not start with two slashes, does not
 * hide a slash, backslash or control character behind a percent sign, and is not the login page;
 * anything else is `/`. What is returned is the path as resolved, not as given.
 */
const ORIGIN = 'http://console.invalid';

export function nextPath(next: string | null | undefined): string {
  if (next === null || next === undefined) return '/';
  if (!/^\/[\x21-\x7e]*$/.test(next) || next.includes('\\') || next.startsWith('//')) return '/';
  let url: URL;
  try {
    url = new URL(next, ORIGIN);
  } catch {
    return '/';
  }
  if (url.origin !== ORIGIN || url.pathname.startsWith('//')) return '/';
  if (/%(2f|5c|[01][0-9a-f]|7f)/i.test(url.pathname)) return '/';
  if (url.pathname === '/login' || url.pathname.startsWith('/login/')) return '/';
  return `${url.pathname}${url.search}`;
}
