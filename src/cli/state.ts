import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/index.ts';
import { openStateDb, type StateDb } from '../state/db.ts';

export const stateDbPath = (config: Config) => join(config.dataDir, 'state.db');

/** Opens the daemon's state.db for a command; a missing one is an error, not a new empty file. */
export function openExistingState(config: Config): StateDb {
  const path = stateDbPath(config);
  if (!existsSync(path)) {
    throw new Error(
      `no state.db in ${config.dataDir} (has the daemon run with this SYNC_DATA_DIR?)`,
    );
  }
  return openStateDb(path);
}
