import { existsSync } from 'node:fs';
import { type Config, dataPaths } from '../config/index.ts';
import { whenOpenFailed } from '../daemon/diskSpace.ts';
import { openStateDb, type StateDb } from '../state/db.ts';

/**
 * Opens the daemon's state.db for a command; a missing one is an error, not a new empty file, and
 * one that cannot be opened on a full disk is said to be so (naming the disk).
 */
export function openExistingState(config: Config): StateDb {
  const path = dataPaths(config.dataDir).stateDb;
  if (!existsSync(path)) {
    throw new Error(
      `no state.db in ${config.dataDir} (has the daemon run with this SYNC_DATA_DIR?)`,
    );
  }
  try {
    return openStateDb(path);
  } catch (err) {
    throw whenOpenFailed(config.dataDir, err);
  }
}
