import { closeSync, type FSWatcher, openSync, watch, writeFileSync } from 'node:fs';
import { dataPaths } from '../config/dataPaths.ts';

/**
 * How a command wakes the daemon once it has recorded a request in state.db (operator_requests):
 * it writes `<data dir>/requests.wake`, which the daemon watches, so the daemon takes the request
 * at once instead of reading state.db ten times a second while nothing is asked (that look was
 * most of an idle daemon's CPU). The daemon still looks now and then (requests.ts), for a file
 * system that does not report changes (some network mounts) and for a wake that could not be
 * written. The file's path: config/dataPaths.ts. ("Wake" is this poke at the daemon; a "nudge" is
 * a job queued in Redis, src/jobs/nudges.ts.)
 */

/** Writes the wake file (in place: a watcher follows the file, not its name); false when it could not. */
export function wakeDaemon(dataDir: string, now: number): boolean {
  try {
    writeFileSync(dataPaths(dataDir).requestWake, `${now}\n`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Calls `onWake` whenever a command writes the wake file (made when missing). Undefined when the
 * file cannot be made or watched here; the daemon's own looks then find the requests.
 */
export function watchWakes(
  dataDir: string,
  onWake: () => void,
  onError: (err: Error) => void,
): { close(): void } | undefined {
  const path = dataPaths(dataDir).requestWake;
  let watcher: FSWatcher;
  try {
    closeSync(openSync(path, 'a'));
    watcher = watch(path, { persistent: false }, () => onWake());
  } catch (err) {
    onError(err as Error);
    return undefined;
  }
  watcher.on('error', (err) => {
    watcher.close();
    onError(err);
  });
  return { close: () => watcher.close() };
}
