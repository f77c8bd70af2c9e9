import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/** The folders under the data dir that ingestion reads and writes. */
export interface DataPaths {
  readonly inbox: string;
  readonly processed: string;
  readonly failed: string;
  readonly outbox: string;
}

export function dataPaths(dataDir: string): DataPaths {
  return {
    inbox: join(dataDir, 'inbox'),
    processed: join(dataDir, 'processed'),
    failed: join(dataDir, 'failed'),
    outbox: join(dataDir, 'outbox'),
  };
}

/** Creates inbox/, processed/, failed/ and outbox/ under the data dir (and the dir itself). */
export async function ensureDataDirs(dataDir: string): Promise<DataPaths> {
  const paths = dataPaths(dataDir);
  for (const dir of Object.values(paths)) await mkdir(dir, { recursive: true });
  return paths;
}
