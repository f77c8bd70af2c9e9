import { when, whenDone, zoneName } from '../../domain/humanTime.ts';
import { type Html, html } from './html.ts';

/** What every page needs to show times: the zone (SYNC_TIMEZONE) and the page's moment. */
export interface TimeContext {
  readonly timezone: string;
  readonly now: number;
}

/** `Europe/Berlin (GMT+1)`: the zone the page's times are in, named once per page. */
export function zoneLabel(t: TimeContext): string {
  return zoneName(t.timezone, t.now);
}

/**
 * A time as the operator reads it (`09:41 (3 min ago)`, local), the UTC instant in its title;
 * with `done`, a time something happened: one dated ahead of the clock says so, not "in …".
 */
export function timeHtml(
  at: number | string | null | undefined,
  t: TimeContext,
  done = false,
): Html {
  if (at === null || at === undefined) return html`<span class="muted">never</span>`;
  const ms = typeof at === 'string' ? Date.parse(at) : at;
  if (Number.isNaN(ms)) return html`<span class="muted">unknown</span>`;
  const iso = new Date(ms).toISOString();
  const shown = (done ? whenDone : when)(ms, t.now, t.timezone);
  return html`<time datetime="${iso}" title="${iso}">${shown}</time>`;
}

/** `3 items` / `1 item`. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
