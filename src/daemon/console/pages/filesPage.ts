import type { Suggestion } from '../../../inventory/index.ts';
import type { FileView } from '../../views.ts';
import { timeHtml } from '../format.ts';
import { html } from '../html.ts';
import { actionButton, type PageContext, page } from '../layout.ts';
import { suggestionSection } from './suggestionSection.ts';

const KIND: Record<string, string> = {
  factory_stock: 'factory stock',
  dc_stock: 'DC stock',
  shipment_confirmations: 'confirmations',
};

const outcomeTag = (outcome: string) => html`<span class="tag ${outcome}">${outcome}</span>`;

/** `/files`: the newest files, what became of each, a link to its report. */
export function filesPage(ctx: PageContext, files: readonly FileView[], limit: number): string {
  const rows = files.map(
    (f) => html`<tr>
<td>${timeHtml(f.receivedAt, ctx)}</td>
<td><a href="/files/${f.id}">${f.file}</a><br><span class="muted">${f.kind === null ? '' : (KIND[f.kind] ?? f.kind)}</span></td>
<td>${outcomeTag(f.outcome)}${f.reason === null ? '' : html`<br><span class="muted">${f.reason}</span>`}</td>
<td class="num">${f.rowsRead}</td><td class="num">${f.rowsAccepted}</td><td class="num${f.rowsRejected > 0 ? ' failed' : ''}">${f.rowsRejected}</td>
<td>${f.heldId === null ? '' : html`<a href="/held">held id ${f.heldId}</a>`}</td>
</tr>`,
  );
  const body =
    files.length === 0
      ? html`<p>No inbox file handled yet.</p>`
      : html`<table>
<thead><tr><th>Received</th><th>File</th><th>Outcome</th><th class="num">Read</th><th class="num">Accepted</th><th class="num">Rejected</th><th></th></tr></thead>
<tbody>${rows}</tbody>
</table>
<p class="muted">The newest ${files.length}${files.length === limit ? html` (<a href="/files?limit=${Math.min(limit * 5, 1000)}">more</a>)` : ''}. The same as JSON: <a href="/api/files">/api/files</a>.</p>`;
  return page(ctx, 'Files', body);
}

type FileWithReport = FileView & { readonly report: Record<string, unknown> | null };

/**
 * `/files/ID`: one file, its figures, its rejected rows and its whole report; for a file that
 * failed, the profile suggested for it (suggestionSection).
 */
export function filePage(
  ctx: PageContext,
  f: FileWithReport,
  suggestion?: Suggestion | string,
): string {
  const report = f.report ?? {};
  const rejected = Array.isArray(report.rejected)
    ? (report.rejected as Array<Record<string, unknown>>)
    : [];
  const rejectedTable =
    rejected.length === 0
      ? ''
      : html`<h2>Rejected rows</h2>
<table><thead><tr><th class="num">Line</th><th>Key</th><th>Field</th><th>Value</th><th>Why</th></tr></thead>
<tbody>${rejected
          .slice(0, 200)
          .map(
            (r) =>
              html`<tr><td class="num">${String(r.line ?? '')}</td><td>${typeof r.key === 'string' ? html`<a href="/explain?key=${encodeURIComponent(r.key)}">${r.key}</a>` : ''}</td><td>${String(r.field ?? '')}</td><td>${r.value === undefined ? '' : String(r.value)}</td><td>${String(r.reason ?? '')}</td></tr>`,
          )}</tbody></table>
${rejected.length > 200 || f.rowsRejected > rejected.length ? html`<p class="muted">${f.rowsRejected} rejected in all; the report file lists each of them.</p>` : ''}`;
  const held =
    f.heldId === null
      ? ''
      : html`<p>The guard rails hold this file (held id ${f.heldId}): ${actionButton(ctx, `/held/${f.heldId}/release`, 'Release', { style: 'primary' })} ${actionButton(ctx, `/held/${f.heldId}/reject`, 'Reject', { style: 'danger' })}</p>`;
  const body = html`<dl class="facts">
<dt>Outcome</dt><dd>${outcomeTag(f.outcome)}${f.reason === null ? '' : html` ${f.reason}`}</dd>
<dt>Kind</dt><dd>${f.kind === null ? '—' : (KIND[f.kind] ?? f.kind)}</dd>
<dt>Received</dt><dd>${timeHtml(f.receivedAt, ctx)}</dd>
<dt>Finished</dt><dd>${f.finishedAt === null ? 'not yet' : timeHtml(f.finishedAt, ctx)}</dd>
<dt>Rows</dt><dd>${f.rowsRead} read, ${f.rowsAccepted} accepted, ${f.rowsRejected} rejected</dd>
<dt>Stored as</dt><dd>${f.storedAs ?? '—'}</dd>
<dt>Report</dt><dd>${f.reportPath ?? 'none kept'}</dd>
</dl>
${held}
${suggestionSection(suggestion)}
${rejectedTable}
<details><summary>The whole report</summary>
<pre>${JSON.stringify({ ...report, rejected: rejected.length > 20 ? `${rejected.length} rows: see above` : rejected }, null, 2)}</pre>
</details>
<p class="muted">The same as JSON: <a href="/api/files/${f.id}">/api/files/${f.id}</a>.</p>`;
  return page(ctx, f.file, body);
}
