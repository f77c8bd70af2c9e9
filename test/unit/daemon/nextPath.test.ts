/**
 * The login page's `next` (src/daemon/console/nextPath.ts): only this console's own paths; every
 * way a browser reads as another site goes to `/`. Over HTTP, never a 500: test/ops/console.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { nextPath } from '../../../src/daemon/console/nextPath.ts';

/** Values of `next` as the server receives them (already decoded once from the query or form). */
const OTHER_SITES = [
  '/\t/evil.example', // the issue's `?next=/%09/evil.example`: browsers drop the tab
  '/\n/evil.example',
  '/\r/evil.example',
  '/\r\nSet-Cookie: x=1',
  '/\\evil.example',
  '/\\/evil.example',
  '\\/evil.example',
  '//evil.example',
  '///evil.example',
  '//evil.example/files',
  '/%09/evil.example', // encoded twice in the query: a percent-encoded tab, slash, backslash
  '/%0a/evil.example',
  '/%0D/evil.example',
  '/%5cevil.example',
  '/%5C%5Cevil.example',
  '/%2f%2fevil.example',
  '/%2F%2Fevil.example',
  '/files%2f..%2f..%2f%2fevil.example',
  '/a/../..//evil.example', // resolves to //evil.example
  '/./..//evil.example',
  'http://evil.example/',
  'https:evil.example',
  'HTTP://evil.example',
  'javascript:alert(1)',
  'JaVaScRiPt:alert(document.cookie)',
  'data:text/html,<script>alert(1)</script>',
  'evil.example',
  ' /files',
  '/files ',
  '/fil\u00e9s',
  '/\u2028evil',
  '/login',
  '/login?next=//evil.example',
  '',
];

describe('after logging in, the browser goes', () => {
  it.each(OTHER_SITES)('to / for %j', (next) => {
    expect(nextPath(next)).toBe('/');
  });

  it('to / without a next', () => {
    expect(nextPath(null)).toBe('/');
    expect(nextPath(undefined)).toBe('/');
  });

  it('to the console page it was sent from, as resolved', () => {
    expect(nextPath('/')).toBe('/');
    expect(nextPath('/files?limit=5')).toBe('/files?limit=5');
    expect(nextPath('/files/12')).toBe('/files/12');
    expect(nextPath('/held')).toBe('/held');
    expect(nextPath('/explain?key=dc%3ADC-LON%3ASKU%2F1')).toBe(
      '/explain?key=dc%3ADC-LON%3ASKU%2F1',
    );
    expect(nextPath('/a/../failures')).toBe('/failures');
  });
});
