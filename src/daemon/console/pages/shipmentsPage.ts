import type { AwaitingShipment } from '../../../state/shipments/shipmentStore.ts';
import { timeHtml } from '../format.ts';
import { html } from '../html.ts';
import { type PageContext, page } from '../layout.ts';

export interface ShipmentsData {
  readonly awaiting: readonly AwaitingShipment[];
  /** How many await in all (the list shows the oldest). */
  readonly awaitingCount: number;
  /** SHIPMENTS_DEADLINE; null when unset. */
  readonly deadline: string | null;
  /** Handed over today, unconfirmed after today's deadline; null before it or without one. */
  readonly overdue: readonly string[] | null;
}

/** `/shipments`: handed to the ERP and awaiting its confirmation; overdue after the deadline. */
export function shipmentsPage(ctx: PageContext, d: ShipmentsData): string {
  const overdue = new Set(d.overdue ?? []);
  const overdueText =
    d.deadline === null
      ? 'No deadline is set (SHIPMENTS_DEADLINE).'
      : d.overdue === null
        ? `Today's deadline (${d.deadline}) has not come yet.`
        : d.overdue.length === 0
          ? `Every shipment handed over today was confirmed by ${d.deadline}.`
          : `${d.overdue.length} shipment(s) handed over today are not confirmed by ${d.deadline}.`;
  const rows = d.awaiting.map(
    (s) => html`<tr>
<td><a href="/explain?key=${encodeURIComponent(`shipment:${s.orderNumber}`)}">${s.orderNumber}</a>${overdue.has(s.orderNumber) ? html` <span class="tag failed">overdue</span>` : ''}</td>
<td>${timeHtml(s.exportedAt, ctx)}</td><td>${s.exportFile ?? ''}</td>
<td>${s.unconfirmedWarnedAt === null ? '' : timeHtml(s.unconfirmedWarnedAt, ctx)}</td>
</tr>`,
  );
  const body = html`<p class="${d.overdue !== null && d.overdue.length > 0 ? 'failed' : ''}">${overdueText}</p>
<h2>Awaiting confirmation (${d.awaitingCount})</h2>
${d.awaiting.length === 0 ? html`<p>None: every shipment handed to the ERP is confirmed.</p>` : html`<table><thead><tr><th>Order</th><th>Handed to the ERP</th><th>Outbox file</th><th>Named as unconfirmed</th></tr></thead><tbody>${rows}</tbody></table>`}
${d.awaitingCount > d.awaiting.length ? html`<p class="muted">The oldest ${d.awaiting.length} of ${d.awaitingCount}.</p>` : ''}
<p class="muted">The same as JSON: <a href="/api/shipments">/api/shipments</a>.</p>`;
  return page(ctx, 'Shipments', body);
}
