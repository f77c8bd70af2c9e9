import { localParts } from './localTime.ts';

/** A span a person reads at a glance: `12 s`, `5 min`, `3 h 20 min`, `2 days`. */
export function span(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
  return `${Math.round(h / 24)} days`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A time in the operator's zone (SYNC_TIMEZONE) and how far it is from now: `09:41 (3 min ago)`
 * today, `2026-11-22 18:00 (15 h ago)` another day, `10:12 (in 31 min)` ahead; `never` for none.
 */
export function when(at: number | null | undefined, now: number, timeZone: string): string {
  if (at === null || at === undefined) return 'never';
  const rel =
    Math.abs(at - now) < 1000 ? 'now' : at < now ? `${span(now - at)} ago` : `in ${span(at - now)}`;
  return `${localTime(at, now, timeZone)} (${rel})`;
}

/**
 * A time something happened (a heartbeat, a poll), as `when` shows it; one dated ahead of the
 * clock (which went back since) says so: `10:12 (dated 31 min ahead of this clock)`.
 */
export function whenDone(at: number | null | undefined, now: number, timeZone: string): string {
  if (at === null || at === undefined || at - now < 1000) return when(at, now, timeZone);
  return `${localTime(at, now, timeZone)} (dated ${span(at - now)} ahead of this clock)`;
}

/** `09:41` on the day of `now`, `2026-11-22 18:00` another day. */
function localTime(at: number, now: number, timeZone: string): string {
  const t = localParts(at, timeZone);
  const today = localParts(now, timeZone);
  const clock = `${pad(t.hour)}:${pad(t.minute)}`;
  const sameDay = t.year === today.year && t.month === today.month && t.day === today.day;
  return sameDay ? clock : `${t.year}-${pad(t.month)}-${pad(t.day)} ${clock}`;
}

/** `Europe/Berlin (GMT+1)`: the zone and its offset from UTC at `at`, to name beside local times. */
export function zoneName(timeZone: string, at: number): string {
  const offset = new Intl.DateTimeFormat('en-GB', { timeZone, timeZoneName: 'shortOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  return offset === undefined ? timeZone : `${timeZone} (${offset})`;
}

/** The line a command's human output ends with when it showed local times. */
export function timesLine(timeZone: string, at: number): string {
  return `times in ${zoneName(timeZone, at)} (SYNC_TIMEZONE)`;
}
