import { profileText, type SuggestedRow, type Suggestion } from '../../inventory/index.ts';

/** What `plan FILE --suggest-profile` prints: the profile, the first rows as it reads them, the notes. */
export function describeSuggestion(file: string, s: Suggestion): string[] {
  const out: string[] = [];
  if (s.profile === null) {
    out.push(`${file}: no profile could be suggested`);
  } else {
    out.push(`${file}: a profile for it (add it to the profiles of INBOX_PROFILES_FILE)`);
    out.push('');
    out.push(...profileText(s.profile).split('\n'));
  }
  if (s.rows.length > 0) {
    out.push('');
    out.push('The first rows as this profile reads them:');
    for (const r of s.rows) out.push(`  ${rowText(r)}`);
  }
  if (s.notes.length > 0) {
    out.push('');
    out.push('Notes:');
    for (const n of s.notes) out.push(`  - ${n}`);
  }
  return out;
}

/** One row: where, and what became of it. */
export function rowText(r: SuggestedRow): string {
  const at = `line ${r.line}`.padEnd(10);
  switch (r.outcome) {
    case 'accepted':
      return `${at}${r.key}${r.quantity === undefined ? '' : ` = ${r.quantity}`}${r.confirmation ? ` (${r.confirmation})` : ''}`;
    case 'rejected':
      return `${at}rejected: ${r.reason}`;
    case 'skipped':
      return `${at}skipped (the profile's rules leave it out)`;
    case 'kept':
      return `${at}kept as it is (the profile's rules)`;
    case 'superseded':
      return `${at}superseded by a later row of ${r.key}`;
    case 'added up':
      return `${at}added up into ${r.key}`;
    case 'not read':
      return `${at}not read: ${Object.entries(r.cells ?? {})
        .map(([field, text]) => `${field} ${JSON.stringify(text)}`)
        .join(', ')}`;
  }
}
