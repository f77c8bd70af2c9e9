import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/configError.ts';
import {
  consoleMode,
  crossOriginReason,
  isLoopbackHost,
  readConsolePassword,
  sameSecret,
} from '../../../src/daemon/console/consoleAuth.ts';
import { escapeHtml, html, url } from '../../../src/daemon/console/html.ts';

describe('html', () => {
  it('escapes every value, nested fragments once, lists joined; nothing else makes markup', () => {
    const name = `<script>alert("x")</script>&'`;
    const cell = html`<td title="${name}">${name}</td>`;
    expect(cell.toString()).toBe(
      '<td title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</td>',
    );
    expect(html`<tr>${[cell, 'a<b', 3, null, undefined, false]}</tr>`.toString()).toBe(
      `<tr>${cell}a&lt;b3</tr>`,
    );
    // A string that looks like markup is still text.
    expect(html`${'<b>x</b>'}`.toString()).toBe('&lt;b&gt;x&lt;/b&gt;');
    expect(escapeHtml('"&"')).toBe('&quot;&amp;&quot;');
    expect(url('/files', { limit: 5, key: 'dc:A B:&', none: undefined })).toBe(
      '/files?limit=5&key=dc%3AA%20B%3A%26',
    );
  });
});

describe('console access', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is read-only on loopback, off elsewhere, and asks the password wherever one is set', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'example.com', undefined])
      expect(isLoopbackHost(host)).toBe(false);
    expect(consoleMode('127.0.0.1', undefined)).toBe('read-only');
    expect(consoleMode('0.0.0.0', undefined)).toBe('off');
    expect(consoleMode(undefined, undefined)).toBe('off');
    expect(consoleMode('0.0.0.0', 'secret-password')).toBe('password');
  });

  it('reads the password file, and refuses a missing, empty or short one naming the key', () => {
    dir = mkdtempSync(join(tmpdir(), 'console-password-'));
    const file = join(dir, 'p');
    writeFileSync(file, 'a good password\n');
    expect(readConsolePassword(file)).toBe('a good password');
    const refused = (content: string | undefined) => {
      if (content !== undefined) writeFileSync(file, content);
      try {
        readConsolePassword(content === undefined ? join(dir!, 'none') : file);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).message;
      }
      throw new Error('not refused');
    };
    expect(refused(undefined)).toMatch(/CONSOLE_PASSWORD_FILE.*ENOENT/);
    expect(refused('\n')).toMatch(/CONSOLE_PASSWORD_FILE.*no password/);
    expect(refused('short\n')).toMatch(/shorter than 8 characters/);
    expect(refused('x'.repeat(1025))).toMatch(/more than 1024/);
  });

  it('compares secrets whole', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abc', 'abd')).toBe(false);
    expect(sameSecret('', 'abc')).toBe(false);
  });

  it('trusts a POST only from its own origin, where the browser says', () => {
    const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
    expect(crossOriginReason(req({ host: 'c.example:9464' }))).toBeUndefined();
    expect(
      crossOriginReason(
        req({
          host: 'c.example:9464',
          origin: 'http://c.example:9464',
          'sec-fetch-site': 'same-origin',
        }),
      ),
    ).toBeUndefined();
    expect(
      crossOriginReason(req({ host: 'c.example:9464', origin: 'http://evil.example' })),
    ).toMatch(/not this console/);
    expect(crossOriginReason(req({ host: 'c.example', origin: 'null' }))).toMatch(/Origin null/);
    expect(crossOriginReason(req({ host: 'c.example', 'sec-fetch-site': 'cross-site' }))).toMatch(
      /cross-site/,
    );
    // Behind a proxy: the name the browser used is X-Forwarded-Host.
    expect(
      crossOriginReason(
        req({
          host: '127.0.0.1:9464',
          'x-forwarded-host': 'sync.example.internal',
          origin: 'https://sync.example.internal',
        }),
      ),
    ).toBeUndefined();
  });
});
