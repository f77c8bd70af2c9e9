import { PLATFORM_STATUSES, type ProductView } from '../../views.ts';
import { count, timeHtml } from '../format.ts';
import { type Html, html } from '../html.ts';
import { type PageContext, page } from '../layout.ts';

/** Most products one page shows (the JSON under /api/products has them all). */
export const PRODUCTS_SHOWN = 500;

/** What `/products` shows: the list, and the filters it was asked for. */
export interface ProductsPageData {
  readonly products: readonly ProductView[];
  readonly all: boolean;
  /** The platform status asked for; undefined: every one. */
  readonly status: string | undefined;
}

/** `/products?status=S&all=1`, keeping the other filter. */
function href(all: boolean, status: string | undefined): string {
  const q = new URLSearchParams();
  if (status !== undefined) q.set('status', status);
  if (all) q.set('all', '1');
  const query = q.toString();
  return query === '' ? '/products' : `/products?${query}`;
}

function review(p: ProductView): Html {
  if (p.platformStatus === 'declined') return html`<span class="tag failed">declined</span>`;
  if (p.platformStatus === 'active') return html`<span class="tag processed">active</span>`;
  return html`<span class="tag held">under review</span> <span class="muted">${p.status ?? '?'} / ${p.platformStatus ?? '?'}</span>`;
}

/**
 * `/products`: the products the daemon created and the platform's review of each (activated,
 * declined with its reason, or still under review), where each came from; `all=1` every product
 * the daemon knows of the portal's, `status=S` one platform status.
 */
export function productsPage(ctx: PageContext, d: ProductsPageData): string {
  const choice = (label: string, to: string, on: boolean) =>
    on ? html`<strong>${label}</strong>` : html`<a href="${to}">${label}</a>`;
  const filters = html`<p>${choice('Created by the daemon', href(false, d.status), !d.all)} · ${choice('Every product known', href(true, d.status), d.all)}</p>
<p>Platform status: ${choice('any', href(d.all, undefined), d.status === undefined)}${PLATFORM_STATUSES.map((s) => html` · ${choice(s, href(d.all, s), d.status === s)}`)}</p>`;
  const shown = d.products.slice(0, PRODUCTS_SHOWN);
  const rows = shown.map(
    (p) => html`<tr>
<td><a href="/explain?key=${encodeURIComponent(`factory:${p.sku}`)}">${p.sku}</a></td>
<td>${p.platformSku ?? ''}</td><td>${p.name ?? ''}</td><td>${review(p)}</td>
<td>${p.declinedReason ?? ''}</td>
<td>${p.createdAt === null ? html`<span class="muted">not by the daemon</span>` : timeHtml(p.createdAt, ctx)}</td>
<td>${p.fileId === null ? (p.createdBy ?? '') : html`<a href="/files/${p.fileId}">${p.createdBy ?? `file ${p.fileId}`}</a>`}</td>
</tr>`,
  );
  const what = d.all ? 'product known' : 'product created by the daemon';
  const list =
    d.products.length === 0
      ? html`<p>No ${what}${d.status === undefined ? '' : ` with platform status ${d.status}`}.</p>`
      : html`<p>${count(d.products.length, what, `${what.replace('product', 'products')}`)}${d.status === undefined ? '' : ` with platform status ${d.status}`}, newest first.</p>
<table><thead><tr><th>SKU</th><th>Platform SKU</th><th>Name</th><th>Review</th><th>Declined because</th><th>Created</th><th>From file</th></tr></thead><tbody>${rows}</tbody></table>
${d.products.length > shown.length ? html`<p class="muted">The newest ${shown.length} of ${d.products.length}.</p>` : ''}`;
  const body = html`${filters}${list}
<p class="muted">A new product is pending / inactive until the platform's review activates or declines it; the daemon looks every CATALOGUE_REVIEW_INTERVAL_MS while one is undecided. A declined product is also written to outbox/ for the ERP (products-declined-*.json). The same as JSON: <a href="/api${href(d.all, d.status)}">/api${href(d.all, d.status)}</a>.</p>`;
  return page(ctx, 'Products', body);
}
