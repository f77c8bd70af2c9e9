/**
 * Keeps secrets out of everything the daemon writes. Two nets: keys whose names say "secret"
 * are masked wherever they appear in a logged object, and every registered secret value (the
 * password, each token obtained) is cut out of any string, including error messages and stacks.
 */
export const REDACTED = '[REDACTED]';

const SECRET_KEY = /pass(word)?|token|secret|authorization|cookie|api[-_]?key/i;
const MIN_SECRET_LENGTH = 4;

/** Secrets kept for the life of the process (the password). */
const pinned = new Set<string>();
/**
 * Secrets that rotate (tokens), the newest last. Each login invalidates the account's other
 * tokens, so only the last few can still do harm; keeping a bounded number keeps every log
 * line's scrub cheap however long the daemon runs.
 */
const rotating = new Set<string>();
const MAX_ROTATING = 32;

/**
 * Registers a value that must never be printed: a password ('pinned', kept for ever) or a token
 * ('rotating', the newest MAX_ROTATING kept). Its JSON-escaped form is registered too: the last
 * net scrubs the finished JSON line, where a secret holding `"`, `\` or a control character only
 * appears escaped (a message string, an object key, a toJSON value).
 */
export function registerSecret(
  value: string | undefined | null,
  kind: 'pinned' | 'rotating' = 'pinned',
): void {
  if (!value || value.length < MIN_SECRET_LENGTH) return;
  const set = kind === 'pinned' ? pinned : rotating;
  const escaped = JSON.stringify(value).slice(1, -1);
  for (const v of escaped === value ? [value] : [value, escaped]) {
    set.delete(v); // re-added as the newest
    set.add(v);
  }
  while (rotating.size > MAX_ROTATING * 2) {
    const oldest = rotating.values().next().value;
    if (oldest === undefined) break;
    rotating.delete(oldest);
  }
}

/** Replaces every registered secret value inside a string. */
export function scrubString(text: string): string {
  let out = text;
  for (const set of [pinned, rotating]) {
    for (const secret of set) {
      if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
    }
  }
  // Bearer tokens that were never registered (a stale one from another process) are cut too.
  return out.replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, `$1${REDACTED}`);
}

/** A deep copy of a value with secret keys masked and secret values cut out of strings. */
export function scrub(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 8) return '[Depth]';
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1, seen));
  if (value instanceof Error) return serializeError(value, depth, seen);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[scrubString(k)] =
      SECRET_KEY.test(k) && v !== undefined && v !== null ? REDACTED : scrub(v, depth + 1, seen);
  }
  return out;
}

/**
 * An error as a plain object: type, message, stack, code, status and its own small fields, never
 * the request options, headers or bodies that HTTP errors carry (they hold the token).
 */
export function serializeError(
  err: Error,
  depth = 0,
  seen = new WeakSet<object>(),
): Record<string, unknown> {
  const out: Record<string, unknown> = { type: err.name, message: scrubString(err.message) };
  const e = err as Error & Record<string, unknown>;
  for (const key of ['code', 'status', 'statusCode', 'apiCode', 'field', 'key', 'retryable']) {
    const v = e[key];
    if (v !== undefined && (typeof v !== 'object' || v === null)) out[key] = scrub(v);
  }
  if (err.stack) out.stack = scrubString(err.stack);
  if (err.cause instanceof Error && depth < 4)
    out.cause = serializeError(err.cause, depth + 1, seen);
  return out;
}
