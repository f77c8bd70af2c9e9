import type { failuresView } from '../../views.ts';
import { timeHtml } from '../format.ts';
import { html } from '../html.ts';
import { actionButton, type PageContext, page } from '../layout.ts';

/** `/failures`: the items the portal rejected and the confirmations it refused, with Retry. */
export function failuresPage(ctx: PageContext, f: ReturnType<typeof failuresView>): string {
  const stock = f.stock.map(
    (x) => html`<tr>
<td><a href="/explain?key=${encodeURIComponent(x.key)}">${x.key}</a></td>
<td class="num">${x.quantity}</td><td>${x.error}</td><td class="num">${x.attempts}</td>
<td>${timeHtml(x.nextAttemptAt, ctx)}</td>
<td>${actionButton(ctx, '/failures/retry', 'Retry now', { fields: { key: x.key } })}</td>
</tr>`,
  );
  const confirmations = f.confirmations.map(
    (c) => html`<tr>
<td><a href="/explain?key=${encodeURIComponent(`shipment:${c.orderNumber}`)}">${c.key}</a></td>
<td>${c.status}</td><td>${c.carrier} ${c.trackingNumber}</td><td>${c.error ?? ''}</td>
<td>${actionButton(ctx, '/failures/retry', 'Retry now', { fields: { key: c.key } })}</td>
</tr>`,
  );
  const all =
    f.stock.length + f.confirmations.length === 0
      ? ''
      : html`<p>${actionButton(ctx, '/failures/retry', 'Retry all now', { fields: { all: '1' }, style: 'primary' })}</p>`;
  const body = html`${all}
<h2>Stock items rejected by the portal (${f.stock.length})</h2>
${f.stock.length === 0 ? html`<p>None.</p>` : html`<table><thead><tr><th>Key</th><th class="num">Quantity</th><th>Error</th><th class="num">Attempts</th><th>Next attempt</th><th></th></tr></thead><tbody>${stock}</tbody></table>`}
<h2>Shipment confirmations refused or in conflict (${f.confirmations.length})</h2>
${f.confirmations.length === 0 ? html`<p>None.</p>` : html`<table><thead><tr><th>Key</th><th>State</th><th>Parcel</th><th>Error</th><th></th></tr></thead><tbody>${confirmations}</tbody></table>`}
<p class="muted">Each is retried with back-off on its own; Retry puts it back in line at once. The same as JSON: <a href="/api/failures">/api/failures</a>.</p>`;
  return page(ctx, 'Failures', body);
}
