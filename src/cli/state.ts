import { existsSync } from 'node:fs';
import { type Config, dataPaths } from '../config/index.ts';
import { openStateDb, type StateDb } from '../state/db.ts';

/** Opens the daemon's state.db for a command; a missing one is an error, not a new empty file. */
export function openExistingState(config: Config): StateDb {
  const path = dataPaths(config.dataDir).stateDb;
  if (!existsSync(path)) {
    throw new Error(
      `no state.db in ${config.dataDir} (has the daemon run with this SYNC_DATA_DIR?)`,
    );
  }
  return openStateDb(path);
}
