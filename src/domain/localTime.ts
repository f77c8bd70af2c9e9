/** Wall-clock arithmetic in an IANA time zone (SYNC_TIMEZONE), without a library. */

interface LocalParts {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, f);
  }
  return f;
}

/** The local date and time of an instant in `timeZone`. */
export function localParts(at: number, timeZone: string): LocalParts {
  const out: Record<string, number> = {};
  for (const p of format(timeZone).formatToParts(at)) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return {
    year: out.year!,
    month: out.month!,
    day: out.day!,
    hour: out.hour!,
    minute: out.minute!,
    second: out.second!,
  };
}

/** Milliseconds the zone is ahead of UTC at `at`. */
function offsetAt(at: number, timeZone: string): number {
  const p = localParts(at, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - (at - (((at % 1000) + 1000) % 1000));
}

/**
 * The instant a local wall-clock time of the day of `at` happens in `timeZone` (the earlier one
 * when a clock change repeats it, the later one when it skips it).
 */
export function localTimeOfDay(
  at: number,
  timeZone: string,
  hour: number,
  minute: number,
  second = 0,
): number {
  const p = localParts(at, timeZone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, hour, minute, second);
  const first = wall - offsetAt(wall, timeZone);
  return wall - offsetAt(first, timeZone);
}

/** The instant the local day of `at` began in `timeZone`. */
export function startOfLocalDay(at: number, timeZone: string): number {
  return localTimeOfDay(at, timeZone, 0, 0);
}
