import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/configError.ts';
import { type Reason, reasonText } from '../../../src/daemon/assess.ts';
import {
  consoleMode,
  crossOriginReason,
  isLoopbackHost,
  readConsolePassword,
  sameSecret,
} from '../../../src/daemon/console/consoleAuth.ts';
import { escapeHtml, html, url } from '../../../src/daemon/console/html.ts';
import type { PageContext } from '../../../src/daemon/console/layout.ts';
import { filePage } from '../../../src/daemon/console/pages/filesPage.ts';
import { reasonHtml } from '../../../src/daemon/console/reasonLinks.ts';

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

describe('the status reasons in the console', () => {
  const reason = (about: Reason['about'], more: Partial<Reason> = {}): Reason => ({
    text: 'something is wrong',
    ...(about === undefined ? {} : { about }),
    ...more,
  });
  const shown = (r: Reason, canAct = true) => reasonHtml(r, canAct).toString();

  it("link the console's own pages, never a command to run, where a page can do it", () => {
    expect(shown(reason('held'))).toBe(
      'something is wrong: <a href="/held">see what is held</a>, then release or reject it there',
    );
    expect(shown(reason('failures'))).toBe(
      'something is wrong: <a href="/failures">see the failures</a>',
    );
    expect(shown(reason('shipments'))).toBe(
      'something is wrong: <a href="/shipments">see the shipments</a>',
    );
    expect(shown(reason('pause'))).toBe(
      'something is wrong: nothing is written to the portal until pushes are resumed (Resume pushes, below)',
    );
    for (const about of ['held', 'failures', 'files', 'shipments', 'pause'] as const) {
      expect(shown(reason(about))).not.toContain('supplier-sync');
    }
    // Read-only, the console has no Resume button; credentials are settings, mended in a shell.
    expect(shown(reason('pause'), false)).toContain('supplier-sync resume');
    expect(shown(reason('credentials'))).toContain('supplier-sync api login-block clear');
    expect(shown(reason(undefined))).toBe('something is wrong');
  });

  it('link each file a reason names to its page, escaped, and the files page', () => {
    const r = reason('files', {
      text: '3 file(s) in the last 24 h failed or had rejected rows',
      items: [
        { text: '<b>x.csv</b> failed (no header names a kind)', fileId: 7 },
        { text: 'y.csv: 2 of 10 row(s) rejected', fileId: 8 },
      ],
      more: 1,
    });
    expect(shown(r)).toBe(
      '3 file(s) in the last 24 h failed or had rejected rows: <a href="/files/7">&lt;b&gt;x.csv&lt;/b&gt; failed (no header names a kind)</a>; <a href="/files/8">y.csv: 2 of 10 row(s) rejected</a>, and 1 more: <a href="/files">see the files</a>',
    );
    // The terminal keeps the command's words for the same reason.
    expect(reasonText(r)).toBe(
      '3 file(s) in the last 24 h failed or had rejected rows: <b>x.csv</b> failed (no header names a kind); y.csv: 2 of 10 row(s) rejected, and 1 more: see `supplier-sync files`',
    );
  });
});

describe("a failed file's page", () => {
  const ctx: PageContext = {
    mode: 'read-only',
    csrf: undefined,
    path: '/files/3',
    timezone: 'UTC',
    now: Date.UTC(2026, 0, 2),
  };
  const failed = {
    id: 3,
    file: 'LAGER_1.TXT',
    storedAs: '20260101T000000Z-3-LAGER_1.TXT',
    kind: null,
    outcome: 'failed' as const,
    reason: 'no header names a kind',
    receivedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
    rowsRead: 0,
    rowsAccepted: 0,
    rowsRejected: 0,
    reportPath: null,
    heldId: null,
    report: { file: 'LAGER_1.TXT', kind: null, rowsRead: 0, rowsAccepted: 0, rejected: [] },
  };

  it('shows the suggested profile, the first rows as it reads them, and the notes, escaped', () => {
    const page = filePage(ctx, failed, {
      profile: {
        match: 'LAGER_*.TXT',
        headerLine: 2,
        columns: { sku: 'Artikelnr', stock_quantity: 'Menge' },
      },
      rows: [
        { line: 3, outcome: 'accepted', key: 'factory:A-1', quantity: 5 },
        { line: 4, outcome: 'rejected', reason: 'stock_quantity not a whole number ≥ 0 ("<x>")' },
        { line: 5, outcome: 'not read', cells: { sku: 'A-3', stock_quantity: '7' } },
      ],
      notes: ['The header is on line 2; line 1 above it is a title, left out.'],
    });
    expect(page).toContain('<h2>A profile for this file</h2>');
    expect(page).toContain(
      '<pre class="profile">{\n  &quot;match&quot;: &quot;LAGER_*.TXT&quot;,\n  &quot;headerLine&quot;: 2,\n  &quot;columns&quot;: { &quot;sku&quot;: &quot;Artikelnr&quot;, &quot;stock_quantity&quot;: &quot;Menge&quot; }\n}</pre>',
    );
    expect(page).toContain(
      '<tr><td class="num">3</td><td>accepted</td><td>factory:A-1 = <strong>5</strong></td></tr>',
    );
    expect(page).toContain('(&quot;&lt;x&gt;&quot;)');
    expect(page).toContain(
      '<td>not read</td><td>sku &quot;A-3&quot;, stock_quantity &quot;7&quot;</td>',
    );
    expect(page).toContain(
      '<li>The header is on line 2; line 1 above it is a title, left out.</li>',
    );
  });

  it('says why there is none; a file that did not fail has no section', () => {
    expect(filePage(ctx, failed, 'The file is no longer in failed/.')).toContain(
      '<p class="muted">The file is no longer in failed/.</p>',
    );
    expect(
      filePage(ctx, failed, { profile: null, rows: [], notes: ['No column looks like a SKU.'] }),
    ).toContain('<p>No profile could be suggested.</p>');
    expect(filePage(ctx, { ...failed, outcome: 'processed' }, undefined)).not.toContain(
      'A profile for this file',
    );
  });
});
