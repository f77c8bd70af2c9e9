import { bytesText } from '../../../domain/diskState.ts';
import type { Assessment } from '../../assess.ts';
import type { QueueDepths, Status } from '../../status.ts';
import { count, timeHtml } from '../format.ts';
import { html } from '../html.ts';
import { actionButton, type PageContext, page } from '../layout.ts';
import { reasonHtml } from '../reasonLinks.ts';

export type StatusWithQueues = Status & {
  readonly queues: QueueDepths | { readonly error: string };
};

/** Whether pushes are paused (since when, why) and the button that changes it. */
function pauseSection(ctx: PageContext, paused: Status['paused']) {
  if (paused !== null) {
    return html`<p class="paused"><strong>Pushes paused</strong> since ${timeHtml(paused.since, ctx)}${paused.reason ? html`: ${paused.reason}` : ''}. Files are still read and checked; nothing is written to the portal. ${actionButton(ctx, '/resume', 'Resume pushes', { style: 'primary' })}</p>`;
  }
  if (ctx.csrf === undefined) return '';
  return html`<form class="inline pause" method="post" action="/pause"><input type="hidden" name="csrf" value="${ctx.csrf}"><label>Reason <input type="text" name="reason" maxlength="500" placeholder="ERP maintenance"></label> <button type="submit" class="danger">Pause pushes</button></form>`;
}

const VERDICT_CLASS = { healthy: 'healthy', degraded: 'degraded', 'needs a person': 'person' };

/** `/`: the verdict and its reasons, what is pending and when it is done, the budget, the rest. */
export function statusPage(ctx: PageContext, s: StatusWithQueues, health: Assessment): string {
  const t = (at: number | null | undefined) => timeHtml(at, ctx);
  const done = (at: number | null | undefined) => timeHtml(at, ctx, true);
  const p = s.pendingDifferences;
  const pending = p.factory + p.dc;
  const b = s.budget;
  const f = s.failures;
  const files = s.files;
  const l = s.last;
  const verdict = html`<p class="verdict ${VERDICT_CLASS[health.verdict]}">${health.verdict === 'needs a person' ? 'NEEDS A PERSON' : health.verdict}</p>
${health.reasons.length === 0 ? '' : html`<ul class="reasons">${health.reasons.map((r) => html`<li>${reasonHtml(r, ctx.csrf !== undefined)}</li>`)}</ul>`}`;
  const queues =
    'error' in s.queues
      ? html`<span class="failed">${s.queues.error}</span>`
      : Object.entries(s.queues).map(
          ([q, c]) =>
            html`${q} ${(c.waiting ?? 0) + (c.prioritized ?? 0)} waiting, ${c.active ?? 0} active, ${c.delayed ?? 0} delayed<br>`,
        );
  const body = html`${verdict}
${pauseSection(ctx, s.paused)}
<h2>Stock</h2>
<dl class="facts">
<dt>Pending</dt><dd>${pending === 0 ? 'nothing to push' : html`${p.factory} factory and ${p.dc} DC difference(s), the oldest since ${t(p.oldestSince)}`}</dd>
<dt>Done by</dt><dd>${pending === 0 ? '—' : html`${count(s.eta.calls, 'bulk call')}; ${s.eta.at === null || s.eta.at <= ctx.now ? 'as soon as they are sent' : t(s.eta.at)}`}</dd>
<dt>Budget</dt><dd>${b.usedLastHour} of ${b.limit} calls used in the last hour; left now: shipments ${b.remainingByLane.shipments}, polls ${b.remainingByLane.poll}, stock ${b.remainingByLane.stock}, reconciliation ${b.remainingByLane.reconcile}${b.freesAt === null ? '' : html`; next call frees ${t(b.freesAt)}`}</dd>
${s.unfinishedApplies.map((a) => html`<dt>Unfinished</dt><dd>apply of ${a.source}${a.heldId === null ? '' : ` (release of held ${a.heldId})`} decided ${t(a.decidedAt)}, ${a.keysMerged} keys merged so far: the daemon finishes it</dd>`)}
<dt>Last push</dt><dd>${l.push === null ? t(null) : l.push.outcome === 'ok' ? html`${t(l.push.at)}: ${l.push.updated} updated, ${l.push.failed} rejected` : html`${t(l.push.at)}: <span class="failed">failed: ${l.push.error}</span>`}</dd>
<dt>Failures</dt><dd><a href="/failures">${count(f.stock.total, 'stock item')} rejected by the portal</a>${f.stock.notFound > 0 ? ` (${f.stock.notFound} "Product not found")` : ''}</dd>
<dt>Held</dt><dd><a href="/held">${s.held.files + s.held.snapshots === 0 ? 'nothing held by the guard rails' : html`${count(s.held.files, 'file')} and ${count(s.held.snapshots, 'snapshot read')} held since ${t(s.held.oldestAt)}`}</a></dd>
<dt>Portal read</dt><dd>${l.reconcile === null ? 'never reconciled' : html`last reconciliation ${t(l.reconcile.at)}: ${l.reconcile.rowsRead} rows read, ${l.reconcile.differences} differences`}</dd>
</dl>
<h2>Files of the last 24 hours</h2>
<dl class="facts">
<dt>Handled</dt><dd><a href="/files">${
    Object.entries(files.counts)
      .filter(([, n]) => n > 0)
      .map(([o, n]) => `${n} ${o}`)
      .join(', ') || 'none'
  }</a></dd>
<dt>Rows rejected</dt><dd>${files.rowsRejected}</dd>
<dt>To look at</dt><dd>${files.problemCount === 0 ? 'none' : files.problems.map((x) => html`<a href="/files/${x.id}">${x.name}</a> <span class="tag ${x.outcome}">${x.outcome}</span>${x.outcome === 'processed' ? ` ${x.rowsRejected} row(s) rejected` : ''}<br>`)}</dd>
<dt>Last file</dt><dd>${l.ingest === null ? t(null) : html`${t(l.ingest.at)}: ${l.ingest.file} ${l.ingest.outcome}`}</dd>
</dl>
<h2>Shipments</h2>
<dl class="facts">
<dt>Ready to ship</dt><dd>${s.shipments.open} on the portal's list; last poll ${l.poll === null ? t(null) : html`${done(l.poll.at)} (${l.poll.count} listed, ${l.poll.new} new)`}</dd>
<dt>Awaiting</dt><dd><a href="/shipments">${count(s.shipments.awaitingConfirmation, 'shipment')} handed to the ERP, not confirmed</a></dd>
<dt>Overdue</dt><dd>${s.shipments.overdue === null ? (s.shipments.deadline === null ? 'no deadline (SHIPMENTS_DEADLINE)' : `none before ${s.shipments.deadline}`) : html`<span class="${s.shipments.overdue.length > 0 ? 'failed' : ''}">${s.shipments.overdue.length} after ${s.shipments.deadline}</span>`}</dd>
<dt>Confirmations</dt><dd>${f.confirmations.pending} waiting, ${f.confirmations.confirmedToday} confirmed today, ${f.confirmations.failed} refused, ${f.confirmations.conflicts} in conflict</dd>
</dl>
<h2>Daemon</h2>
<dl class="facts">
<dt>Heartbeat</dt><dd>${s.daemon === null ? 'none yet' : html`${done(s.daemon.at)}, running since ${done(s.daemon.startedAt)}`}</dd>
${s.disk === null ? '' : html`<dt>Disk</dt><dd>${s.disk.full ? html`<span class="failed">FULL: ${s.disk.path} (${bytesText(s.disk.freeBytes)} free) since ${t(s.disk.since)}</span>` : `${bytesText(s.disk.freeBytes)} free at ${s.disk.path}`}</dd>`}
<dt>Token</dt><dd>${s.token === null ? 'none yet' : html`obtained ${t(s.token.obtainedAt)}`}${s.loginBlock === null ? '' : html` <span class="failed">logins stopped since ${t(s.loginBlock.at)} (HTTP ${s.loginBlock.status})</span>`}</dd>
<dt>Queues</dt><dd>${queues}</dd>
</dl>
<p class="muted">Read ${t(s.at)}; this page reloads every 30 s. The same as JSON: <a href="/api/status">/api/status</a>.</p>`;
  return page(ctx, 'Status', body, { refreshSeconds: 30 });
}
