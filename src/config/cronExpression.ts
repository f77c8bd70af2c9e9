import { Cron } from 'croner';

/**
 * Cron expressions, read by croner: 5 fields, or 6 with seconds first. Day of month and day of
 * week must both match when both are given (as the daemon has always read them, not the "either"
 * of classic cron). Full day and month names (`monday`, `january`) are taken as their first three
 * letters, as the cron library the daemon used before croner read them.
 */

/** The next slot strictly after a time (epoch ms), in the schedule's time zone; null: never. */
export interface CronSlots {
  readonly expression: string;
  next(after: number): number | null;
}

const FULL_NAMES =
  /\b(sunday|monday|tuesday|wednesday|thursday|friday|saturday|january|february|march|april|june|july|august|september|october|november|december)\b/gi;

/** UTC is a fixed offset: croner's arithmetic then needs no time zone database (5 times faster). */
const UTC_ZONES: ReadonlySet<string> = new Set(['UTC', 'Etc/UTC']);

function read(expression: string, timezone?: string): Cron {
  const pattern = expression.trim().replace(FULL_NAMES, (name) => name.slice(0, 3));
  return new Cron(pattern, {
    paused: true,
    mode: '5-or-6-parts',
    domAndDow: true,
    ...(timezone === undefined ? {} : UTC_ZONES.has(timezone) ? { utcOffset: 0 } : { timezone }),
  });
}

/**
 * Slots worked out at once: croner finds a run of them for a fraction of what it takes for each
 * on its own (a 5-second schedule in Europe/London: 62 us a slot instead of 350).
 */
const BATCH = 16;

/** What is wrong with a cron expression (croner's words), or undefined when it can run. */
export function cronProblem(expression: string): string | undefined {
  try {
    const cron = read(expression, 'UTC');
    if (cron.nextRun(new Date(0)) === null) return 'it never runs';
    return undefined;
  } catch (err) {
    return (err instanceof Error ? err.message : String(err)).replace(/^CronPattern: /, '');
  }
}

/**
 * The slots of an expression in an IANA time zone, pure: `next(t)` is the first slot after `t`,
 * to the second. Across a change to summer time a slot in the skipped hour runs at its end; in the
 * hour that repeats, a slot of a fixed time of day runs once, a repeating one in both.
 */
export function cronSlots(expression: string, timezone: string): CronSlots {
  const cron = read(expression, timezone);
  // The slots after `from`, in order: the answer for any time from `from` to the last of them.
  let from = Number.POSITIVE_INFINITY;
  let ahead: number[] = [];
  return {
    expression,
    next(after) {
      if (after >= from) {
        const slot = ahead.find((t) => t > after);
        if (slot !== undefined) return slot;
        if (ahead.length < BATCH) return null;
      }
      from = after;
      ahead = cron.nextRuns(BATCH, new Date(after)).map((d) => d.getTime());
      return ahead[0] ?? null;
    },
  };
}
