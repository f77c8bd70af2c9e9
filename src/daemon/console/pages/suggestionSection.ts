import { profileText, type SuggestedRow, type Suggestion } from '../../../inventory/index.ts';
import { type Html, html } from '../html.ts';

/** What became of a row, in a few words, and the detail beside it. */
function rowCells(r: SuggestedRow): [string, Html | string] {
  switch (r.outcome) {
    case 'accepted':
      return [
        'accepted',
        html`${r.key ?? ''}${r.quantity === undefined ? '' : html` = <strong>${r.quantity}</strong>`}${r.confirmation ? ` (${r.confirmation})` : ''}`,
      ];
    case 'rejected':
      return ['rejected', r.reason ?? ''];
    case 'skipped':
      return ['skipped', "left out by the profile's rules"];
    case 'kept':
      return ['kept', "kept as it is by the profile's rules"];
    case 'superseded':
      return ['superseded', `by a later row of ${r.key}`];
    case 'added up':
      return ['added up', `into ${r.key}`];
    case 'not read':
      return [
        'not read',
        Object.entries(r.cells ?? {})
          .map(([field, text]) => `${field} "${text}"`)
          .join(', '),
      ];
  }
}

/**
 * The profile suggested for a failed file (what `plan FILE --suggest-profile` prints): what it
 * found and could not decide, the profile, the first rows as it reads them.
 */
export function suggestionSection(s: Suggestion | string | undefined): Html | string {
  if (s === undefined) return '';
  const intro = html`<h2>A profile for this file</h2>
<p>A profile in <code>INBOX_PROFILES_FILE</code> tells the daemon what an export's columns mean. This one is suggested from the file's first rows (<code>supplier-sync plan FILE --suggest-profile</code> prints the same): check it, add it to the profiles, and drop the file in <code>inbox/</code> again.</p>`;
  if (typeof s === 'string') return html`${intro}<p class="muted">${s}</p>`;
  const notes =
    s.notes.length === 0
      ? ''
      : html`<ul class="notes">${s.notes.map((n) => html`<li>${n}</li>`)}</ul>`;
  const profile =
    s.profile === null
      ? html`<p>No profile could be suggested.</p>`
      : html`<pre class="profile">${profileText(s.profile)}</pre>`;
  const rows =
    s.rows.length === 0
      ? ''
      : html`<h3>The first rows as it reads them</h3>
<table><thead><tr><th class="num">Line</th><th>Outcome</th><th>Key and quantity, or why</th></tr></thead>
<tbody>${s.rows.map((r) => {
          const [outcome, detail] = rowCells(r);
          return html`<tr><td class="num">${r.line}</td><td>${outcome}</td><td>${detail}</td></tr>`;
        })}</tbody></table>`;
  return html`${intro}${notes}${profile}${rows}`;
}
