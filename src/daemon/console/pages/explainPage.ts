import type { Explanation } from '../../explain.ts';
import { describeExplanation } from '../../explainText.ts';
import { html } from '../html.ts';
import { type PageContext, page } from '../layout.ts';

/**
 * `/explain?key=KEY`: the story of one key, in the sentences `explain KEY` prints. `result` is
 * undefined before a key is asked, a string when the key is not one or nothing is known of it.
 */
export function explainPage(
  ctx: PageContext,
  key: string,
  result: Explanation | string | undefined,
): string {
  const form = html`<form method="get" action="/explain">
<label>Key <input type="text" name="key" value="${key}" placeholder="factory:SKU, dc:CODE:SKU or shipment:ORDER" autofocus></label>
<button type="submit" class="primary">Explain</button>
</form>`;
  let story = html``;
  if (typeof result === 'string') story = html`<p class="notice error">${result}</p>`;
  else if (result !== undefined) {
    const [title, ...lines] = describeExplanation(result, ctx.now, ctx.timezone);
    // Each line is `  Label:     text` (the label padded to 12 columns, empty on a follow-up).
    story = html`<h2>${title}</h2><dl class="facts">${lines.map(
      (line) =>
        html`<dt>${line.slice(2, 14).trim().replace(/:$/, '')}</dt><dd>${line.slice(14)}</dd>`,
    )}</dl>
<p class="muted">The same as JSON: <a href="/api/explain/${encodeURIComponent(key)}">/api/explain/${key}</a>.</p>`;
  }
  return page(ctx, 'Explain a key', html`${form}${story}`);
}
