import type { Reason, ReasonAbout } from '../assess.ts';
import { type Html, html } from './html.ts';

/** Where the console sends an operator about a reason: its own page, not a command. */
const PAGES: Readonly<Record<ReasonAbout, (canAct: boolean) => Html | undefined>> = {
  held: () => html`<a href="/held">see what is held</a>, then release or reject it there`,
  failures: () => html`<a href="/failures">see the failures</a>`,
  files: () => html`<a href="/files">see the files</a>`,
  shipments: () => html`<a href="/shipments">see the shipments</a>`,
  products: () => html`<a href="/products?status=declined">see the declined products</a>`,
  pause: (canAct) =>
    canAct
      ? html`nothing is written to the portal until pushes are resumed (Resume pushes, below)`
      : html`nothing is written to the portal until pushes are resumed (with the console's password, or <code>supplier-sync resume</code>)`,
  // No page mends credentials: they are settings, and the block is cleared from a shell.
  credentials: () =>
    html`fix SUPPLIER_EMAIL / SUPPLIER_PASSWORD, then clear the block with <code>supplier-sync api login-block clear</code>`,
};

/**
 * A reason of the verdict as the console shows it: its text, the files it names each linked to
 * its page (where a failed file's suggested profile is), and a link to the console's page for
 * what it is about. `canAct`: the page shows actions (password mode, logged in).
 */
export function reasonHtml(r: Reason, canAct: boolean): Html {
  const items =
    r.items === undefined
      ? ''
      : html`: ${r.items.map(
          (item, i) =>
            html`${i > 0 ? '; ' : ''}${item.fileId === undefined ? item.text : html`<a href="/files/${item.fileId}">${item.text}</a>`}`,
        )}${r.more ? `, and ${r.more} more` : ''}`;
  const where = r.about === undefined ? undefined : PAGES[r.about](canAct);
  return html`${r.text}${items}${where === undefined ? '' : html`: ${where}`}`;
}
