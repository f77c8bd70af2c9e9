import { initialSchema } from './001-initial.ts';
import { desiredSourceTime } from './002-desired-source-time.ts';
import { pendingStockTable } from './003-pending-stock.ts';
import { outboxHandovers } from './005-outbox-handovers.ts';
import { retentionIndexes } from './007-retention-indexes.ts';
import { shipmentWatch } from './009-shipment-watch.ts';
import { stagedApply } from './010-staged-apply.ts';
import { inboxAttempts } from './011-inbox-attempts.ts';
import { stockPushes } from './013-stock-pushes.ts';
import { heldTables } from './014-held.ts';
import { stockRules } from './016-stock-rules.ts';
import { fileCounts } from './017-file-counts.ts';
import { notifyOutbox } from './020-notify-outbox.ts';
import { stagedApplyIds } from './030-staged-apply-ids.ts';
import { oneWriter } from './031-one-writer.ts';
import { productsTables } from './040-products.ts';
import { productReview } from './041-product-review.ts';
import { retentionMore } from './042-retention-more.ts';

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
  { version: 5, name: 'outbox-handovers', sql: outboxHandovers },
  { version: 7, name: 'retention-indexes', sql: retentionIndexes },
  { version: 9, name: 'shipment-watch', sql: shipmentWatch },
  { version: 10, name: 'staged-apply', sql: stagedApply },
  { version: 11, name: 'inbox-attempts', sql: inboxAttempts },
  { version: 13, name: 'stock-pushes', sql: stockPushes },
  { version: 14, name: 'held', sql: heldTables },
  { version: 16, name: 'stock-rules', sql: stockRules },
  { version: 17, name: 'file-counts', sql: fileCounts },
  { version: 20, name: 'notify-outbox', sql: notifyOutbox },
  { version: 30, name: 'staged-apply-ids', sql: stagedApplyIds },
  { version: 31, name: 'one-writer', sql: oneWriter },
  { version: 40, name: 'products', sql: productsTables },
  { version: 41, name: 'product-review', sql: productReview },
  { version: 42, name: 'retention-more', sql: retentionMore },
];
