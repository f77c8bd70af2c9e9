import type { ConsoleMode } from './consoleAuth.ts';
import { type TimeContext, zoneLabel } from './format.ts';
import { type Html, html } from './html.ts';

/** What every page is rendered with. */
export interface PageContext extends TimeContext {
  readonly mode: ConsoleMode;
  /** The session's CSRF token (password mode, logged in); undefined: no actions on the page. */
  readonly csrf: string | undefined;
  /** The path asked for (the navigation marks its page). */
  readonly path: string;
  /** What the last action did, shown once. */
  readonly notice?: { readonly text: string; readonly error: boolean } | undefined;
}

const NAV: ReadonlyArray<readonly [string, string]> = [
  ['/', 'Status'],
  ['/files', 'Files'],
  ['/held', 'Held'],
  ['/failures', 'Failures'],
  ['/shipments', 'Shipments'],
  ['/products', 'Products'],
  ['/explain', 'Explain'],
];

function current(path: string, href: string): boolean {
  return href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`);
}

/** A whole page: header with the navigation and the time zone, the notice, the body. */
export function page(
  ctx: PageContext,
  title: string,
  body: Html,
  options: { readonly refreshSeconds?: number } = {},
): string {
  const nav = NAV.map(
    ([href, label]) =>
      html`<a href="${href}"${current(ctx.path, href) ? html` aria-current="page"` : ''}>${label}</a>`,
  );
  const logout =
    ctx.mode === 'password' && ctx.csrf !== undefined
      ? html`<form method="post" action="/logout"><input type="hidden" name="csrf" value="${ctx.csrf}"><button type="submit">Log out</button></form>`
      : '';
  const readOnly =
    ctx.mode === 'read-only'
      ? html`<p class="notice">Read-only: this console shows, but takes no action. Set CONSOLE_PASSWORD_FILE to release, reject and retry from here.</p>`
      : '';
  const notice = ctx.notice
    ? html`<p class="notice${ctx.notice.error ? ' error' : ''}" role="status">${ctx.notice.text}</p>`
    : '';
  const refresh =
    options.refreshSeconds === undefined
      ? ''
      : html`<meta http-equiv="refresh" content="${options.refreshSeconds}">`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · supplier-sync</title>
<link rel="stylesheet" href="/console.css">
${refresh}
</head>
<body>
<header><span class="brand">supplier-sync</span><nav>${nav}</nav><span class="zone">Times in ${zoneLabel(ctx)}</span>${logout}</header>
<main>
${readOnly}${notice}
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`.toString();
}

/**
 * A button that POSTs an action with the session's CSRF token; nothing where the page may not
 * act (read-only, not logged in).
 */
export function actionButton(
  ctx: PageContext,
  action: string,
  label: string,
  options: {
    readonly fields?: Readonly<Record<string, string>>;
    readonly style?: 'primary' | 'danger';
  } = {},
): Html | '' {
  if (ctx.csrf === undefined) return '';
  const fields = Object.entries(options.fields ?? {}).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return html`<form class="inline" method="post" action="${action}"><input type="hidden" name="csrf" value="${ctx.csrf}">${fields}<button type="submit"${options.style ? html` class="${options.style}"` : ''}>${label}</button></form>`;
}
