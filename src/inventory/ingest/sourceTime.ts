import { sourceTime } from '../../domain/sourceTime.ts';
import type { Logger } from '../../log/logger.ts';

/**
 * The time an inbox file's rows are ordered by (domain/sourceTime.ts: its mtime, never later
 * than when it was seen); a file dated ahead of the clock is logged as `file.future_mtime`.
 */
export function fileSourceTime(name: string, mtimeMs: number, seenAt: number, log: Logger): number {
  const t = sourceTime(mtimeMs, seenAt);
  if (t.future) {
    log.warn(
      {
        event: 'file.future_mtime',
        file: name,
        mtime: new Date(Math.floor(mtimeMs)).toISOString(),
        seenAt: new Date(seenAt).toISOString(),
        aheadMs: t.aheadMs,
      },
      `${name} is dated ${new Date(Math.floor(mtimeMs)).toISOString()}, ahead of this machine's clock: its rows are ordered by when it was seen`,
    );
  }
  return t.at;
}
