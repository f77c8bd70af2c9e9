/** How long an item the portal rejected waits before it is sent again. */
export interface RetrySettings {
  /** First delay, doubled per attempt. */
  readonly baseMs: number;
  /** Longest delay. */
  readonly maxMs: number;
  /** Delay for "Product not found": the SKU has to be created on the portal first. */
  readonly notFoundMs: number;
}

/** The time of the next attempt after `attempts` failed ones (attempts ≥ 1). */
export function nextAttemptAt(
  attempts: number,
  notFound: boolean,
  now: number,
  s: RetrySettings,
): number {
  if (notFound) return now + s.notFoundMs;
  const exponent = Math.min(Math.max(attempts - 1, 0), 30);
  return now + Math.min(s.baseMs * 2 ** exponent, s.maxMs);
}

/** The portal's words for an unknown SKU (the spec names this message). */
export function isNotFoundError(message: string): boolean {
  return /product not found/i.test(message);
}
