import { isIP } from 'node:net';
import { z } from 'zod';
import { parseAddressRange } from './addressRange.ts';
import { cronProblem } from './cronExpression.ts';

/** The shape of a setting and the checks its values go through (settings.ts holds the table). */

export interface Setting<T, Optional extends boolean = boolean> {
  readonly key: string;
  readonly schema: z.ZodType<T, unknown>;
  /** The built-in default; undefined for optional settings (some commands require them). */
  readonly default: Optional extends true ? undefined : T;
  readonly doc: string;
  /** Never printed: redacted in logs and in `daemon.started`. */
  readonly secret: boolean;
}

export const setting = <T>(
  key: string,
  schema: z.ZodType<T, unknown>,
  def: T,
  doc: string,
): Setting<T, false> => ({
  key,
  schema,
  default: def,
  doc,
  secret: false,
});

export const optional = <T>(
  key: string,
  schema: z.ZodType<T, unknown>,
  doc: string,
  secret = false,
): Setting<T, true> => ({ key, schema, default: undefined, doc, secret });

/** Whole numbers from JSON numbers or from strings of digits (env, flags); nothing looser. */
export const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .union([z.number(), z.string().regex(/^\s*-?\d+\s*$/, 'must be a whole number')])
    .transform((v) => (typeof v === 'number' ? v : Number.parseInt(v, 10)))
    .pipe(
      z
        .number()
        .int('must be a whole number')
        .min(min, `must be at least ${min}`)
        .max(max, `must be at most ${max}`),
    );

/** The longest delay a Node timer takes (2^31 − 1 ms, about 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * A duration in milliseconds between `min` and `max`: every duration setting has a bound (an
 * overflowing setTimeout fires at once, so a huge value would mean "no wait at all").
 */
export const ms = (min: number, max: number) => {
  if (max > MAX_TIMER_MS) throw new Error(`a duration bound above ${MAX_TIMER_MS} ms`);
  return int(min, max);
};

export const bool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');

export const text = z.string().trim().min(1, 'must not be empty');

/** A 5-field cron expression, or 6 fields with seconds first (config/cronExpression.ts). */
export const cron = text.superRefine((v, ctx) => {
  const problem = cronProblem(v);
  if (problem !== undefined)
    ctx.addIssue({
      code: 'custom',
      message: `must be a cron expression of 5 fields, or 6 with seconds first (${problem})`,
    });
});

export const timezone = text.refine((v) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: v });
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone such as UTC or Europe/London');

export const apiUrl = text
  .url('must be a URL')
  .refine((v) => /^https?:\/\//.test(v), 'must be an http(s) URL')
  .transform((v) => v.replace(/\/+$/, ''))
  .refine((v) => v.endsWith('/api/v1'), 'must end with /api/v1');

/** One Redis URL as ioredis reads it: redis:// or rediss:// with a host. */
function isRedisUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'redis:' || u.protocol === 'rediss:') && /^[^,]+$/.test(u.hostname);
  } catch {
    return false;
  }
}

/**
 * The URLs of REDIS_URL: one, or (for a Redis Cluster) several separated by commas. A value that
 * is one URL as it stands is one, even with a comma in its password.
 */
export function redisUrls(value: string): string[] {
  return isRedisUrl(value) ? [value] : value.split(',').map((u) => u.trim());
}

/**
 * REDIS_URL: a Redis URL, or several comma-separated (nodes of a Redis Cluster; whether they
 * may be several is checked with REDIS_CLUSTER, in checks.ts). The value is never quoted back:
 * it may hold a password.
 */
export const redisUrl = text.refine(
  (v) => redisUrls(v).every(isRedisUrl),
  'must be a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379 or redis://:PASSWORD@redis:6379 (with REDIS_CLUSTER, one or more nodes of the cluster, separated by commas)',
);

/**
 * A BullMQ key prefix: letters, digits, _ . - and at most one hash tag in braces (`{acme}`,
 * `sync-{acme}`), which puts all of a daemon's keys in one slot of a Redis Cluster.
 */
export const queuePrefix = text.regex(
  /^[A-Za-z0-9_.-]*(\{[A-Za-z0-9_.-]+\})?[A-Za-z0-9_.-]*$/,
  'may hold only letters, digits, _ . - and one hash tag in braces ({acme})',
);

/** An interface to listen on: an IP address (0.0.0.0, ::, 127.0.0.1 …) or a host name. */
export const listenHost = text.refine(
  (v) =>
    isIP(v) !== 0 ||
    /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(v),
  'must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name',
);

/**
 * IP addresses or CIDR ranges, separated by commas (`10.0.0.0/8, 127.0.0.1`; in a JSON config
 * file also an array of them).
 */
export const addressList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : v.split(',')).map((e) => e.trim()).filter((e) => e !== ''),
  )
  .refine(
    (entries) => entries.every((e) => parseAddressRange(e) !== undefined),
    'must be IP addresses or CIDR ranges (10.0.0.0/8, fd00::/8), separated by commas',
  );

export const level = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** A reserve of the hourly call budget: calls an hour, or a share of it (`8.33%`). */
export type Reserve = number | `${number}%`;

/**
 * A reserve: a whole number of calls an hour, or a percentage of API_REQUESTS_PER_HOUR (`25%`,
 * decimals allowed), which scales with the budget; see reserveCalls.
 */
export const reserve = z.union([z.number(), z.string()]).transform((v, ctx): Reserve => {
  const raw = typeof v === 'number' ? String(v) : v.trim();
  if (/^\d+$/.test(raw)) return Number.parseInt(raw, 10);
  const share = /^(\d+(?:\.\d+)?)\s*%$/.exec(raw);
  if (share && Number(share[1]) <= 100) return `${Number(share[1])}%`;
  ctx.addIssue({
    code: 'custom',
    message:
      'must be a whole number of calls an hour, or a share of API_REQUESTS_PER_HOUR such as 25%',
  });
  return z.NEVER;
});

/** A reserve in calls at a budget of `perHour` calls an hour (a share is rounded to the nearest call). */
export function reserveCalls(r: Reserve, perHour: number): number {
  return typeof r === 'number' ? r : Math.round((perHour * Number.parseFloat(r)) / 100);
}
