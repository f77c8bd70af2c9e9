import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Every path under the data dir (SYNC_DATA_DIR): built here and nowhere else. */
export interface DataPaths {
  readonly dataDir: string;
  /** The state database. */
  readonly stateDb: string;
  readonly inbox: string;
  readonly processed: string;
  readonly failed: string;
  readonly outbox: string;
}

/** The folders `ensureDataDirs` creates. */
const FOLDERS = ['inbox', 'processed', 'failed', 'outbox'] as const;

export function dataPaths(dataDir: string): DataPaths {
  return {
    dataDir,
    stateDb: join(dataDir, 'state.db'),
    inbox: join(dataDir, 'inbox'),
    processed: join(dataDir, 'processed'),
    failed: join(dataDir, 'failed'),
    outbox: join(dataDir, 'outbox'),
  };
}

/** Creates the data dir and its folders (inbox/, processed/, failed/, outbox/). */
export async function ensureDataDirs(dataDir: string): Promise<DataPaths> {
  const paths = dataPaths(dataDir);
  for (const folder of FOLDERS) await mkdir(paths[folder], { recursive: true });
  return paths;
}
