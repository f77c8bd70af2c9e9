import { initialSchema } from './001-initial.ts';
import { desiredSourceTime } from './002-desired-source-time.ts';
import { pendingStockTable } from './003-pending-stock.ts';
import { retentionIndexes } from './007-retention-indexes.ts';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Ordered, append-only: never edit a migration that has shipped; add the next one. */
export const migrations: readonly Migration[] = [
  { version: 1, name: 'initial', sql: initialSchema },
  { version: 2, name: 'desired-source-time', sql: desiredSourceTime },
  { version: 3, name: 'pending-stock', sql: pendingStockTable },
  // 4 to 6 belong to other branches; applyMigrations applies each version above the stored one.
  { version: 7, name: 'retention-indexes', sql: retentionIndexes },
];
