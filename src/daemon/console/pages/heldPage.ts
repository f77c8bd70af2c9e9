import type { HeldView } from '../../views.ts';
import { timeHtml } from '../format.ts';
import { html } from '../html.ts';
import { actionButton, type PageContext, page } from '../layout.ts';

/** `/held`: what the guard rails hold, why, with the figures, and Release / Reject. */
export function heldPage(ctx: PageContext, held: readonly HeldView[]): string {
  const items = held.map((h) => {
    const f = h.figures;
    return html`<section class="held-entry">
<h2>${h.source === 'file' ? h.file : 'Snapshot read'} <span class="muted">held id ${h.id}</span></h2>
<dl class="facts">
<dt>Held</dt><dd>${timeHtml(h.heldAt, ctx)}</dd>
<dt>Why</dt><dd>${h.reason}</dd>
${h.catalogue === null ? '' : html`<dt>Figures</dt><dd>${h.catalogue.wouldCreate} new products, more than CATALOGUE_MAX_NEW (${h.catalogue.max})</dd>`}
${f === null ? '' : html`<dt>Figures</dt><dd>${f.keysNamed} keys named (${f.keysUnknown} unknown to the portal), ${f.keysInStock} in stock on the portal, ${f.keysZeroed} would be set to 0; sum of quantities ${f.sumBefore} → ${f.sumAfter}</dd>`}
${h.examples.length === 0 ? '' : html`<dt>For example</dt><dd>${h.examples.slice(0, 8).map((x) => html`<a href="/explain?key=${encodeURIComponent(x.key)}">${x.key}</a> ${x.portal} → ${x.quantity}<br>`)}</dd>`}
${h.storedAs === null ? '' : html`<dt>File</dt><dd>held/${h.storedAs}</dd>`}
</dl>
<p>${actionButton(ctx, `/held/${h.id}/release`, 'Release: apply it as it stands', { style: 'primary' })} ${actionButton(ctx, `/held/${h.id}/reject`, h.source === 'file' ? 'Reject: move it to failed/' : 'Reject: drop it', { style: 'danger' })}</p>
</section>`;
  });
  const body =
    held.length === 0
      ? html`<p>Nothing held by the guard rails.</p>`
      : html`<p>Nothing of these reached the portal. Release applies one as it stands (keys a newer file set since keep the newer values); Reject moves a file to failed/ or drops a snapshot read.</p>${items}`;
  return page(
    ctx,
    'Held by the guard rails',
    html`${body}<p class="muted">The same as JSON: <a href="/api/held">/api/held</a>.</p>`,
  );
}
