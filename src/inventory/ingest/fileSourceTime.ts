import type { Stats } from 'node:fs';
import { sourceTime } from '../../domain/sourceTime.ts';
import type { Logger } from '../../log/logger.ts';

/**
 * The time an inbox file's rows are ordered by (domain/sourceTime.ts): its mtime, never later
 * than when it was first seen here. "First seen" is the earlier of its change time (set by this
 * machine's clock when the file was written or renamed into inbox/; no tool can set it back) and
 * this read: the same on every retry of the file. A file dated ahead of the clock is logged as
 * `file.future_mtime`. `carriedMs` carries it across jumps of the clock back (sourceTime).
 */
export function fileSourceTime(
  name: string,
  st: Pick<Stats, 'mtimeMs' | 'ctimeMs'>,
  readAt: number,
  log: Logger,
  carriedMs = 0,
): number {
  const seenAt = Math.min(Math.floor(st.ctimeMs), readAt);
  const t = sourceTime(st.mtimeMs, seenAt, carriedMs);
  if (t.future) {
    const mtime = new Date(Math.floor(st.mtimeMs)).toISOString();
    log.warn(
      {
        event: 'file.future_mtime',
        file: name,
        mtime,
        seenAt: new Date(seenAt).toISOString(),
        aheadMs: t.aheadMs,
      },
      `${name} is dated ${mtime}, ahead of this machine's clock: its rows are ordered by when it arrived`,
    );
  }
  return t.at;
}
