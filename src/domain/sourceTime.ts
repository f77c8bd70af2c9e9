/**
 * How far ahead of this machine's clock a file may be dated before it is worth a warning: the
 * ERP's clock and ours may differ by a little.
 */
export const FUTURE_TOLERANCE_MS = 60_000;

export interface SourceTime {
  /** The time the source's rows are ordered by, epoch ms. */
  readonly at: number;
  /** How far the written time lies ahead of when the source was seen, ms (0 when not ahead). */
  readonly aheadMs: number;
  /** Whether that is beyond FUTURE_TOLERANCE_MS: the source is dated in the future. */
  readonly future: boolean;
}

/**
 * The time the rows of a source (an inbox file, a snapshot) are ordered by: when the ERP wrote
 * it (its modification time), but never later than when it was seen. A file dated in the future
 * (a wrong clock, a copy that kept a bad date) would otherwise win over every file written after
 * it until that date came.
 *
 * Carried across jumps of the clock back: `carriedMs` (how far the clock has gone back in all, as
 * the daemon noticed it) is added, so that a source that arrives after a jump back is newer than
 * every one before it, while sources read between two jumps keep their order by modification time.
 */
export function sourceTime(writtenAt: number, seenAt: number, carriedMs = 0): SourceTime {
  const written = Math.floor(writtenAt);
  const aheadMs = Math.max(0, written - seenAt);
  return {
    at: Math.min(written, seenAt) + carriedMs,
    aheadMs,
    future: aheadMs > FUTURE_TOLERANCE_MS,
  };
}
