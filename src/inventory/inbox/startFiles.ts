import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isIgnoredName } from './inboxNames.ts';

/**
 * The longest a first-start decision waits for the files that were in the inbox at start: a
 * file that never leaves it (unreadable, always changing) must not hold the first sync for good.
 */
export const START_FILES_WAIT_MS = 10 * 60_000;

/**
 * Remembers the files in inbox/ when the daemon starts and answers, when asked, whether every
 * one of them has left it (applied and moved to processed/, or to failed/ or held/), or the
 * wait has lasted START_FILES_WAIT_MS. The first sync's choice of kind by kind (read the portal
 * or push every row) is made only then, so that it sees every file that was already there.
 */
export function startFilesApplied(
  inboxDir: string,
  now: () => number,
  maxWaitMs = START_FILES_WAIT_MS,
): () => boolean {
  let left = readdirSync(inboxDir, { withFileTypes: true })
    .filter((e) => e.isFile() && !isIgnoredName(e.name))
    .map((e) => e.name);
  const since = now();
  return () => {
    if (left.length > 0) left = left.filter((name) => existsSync(join(inboxDir, name)));
    return left.length === 0 || now() - since >= maxWaitMs;
  };
}
