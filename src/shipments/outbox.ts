import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../domain/clock.ts';
import { renameDurably, writeDurably } from '../files/durable.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { type ShipmentRecord, ShipmentStore } from '../state/shipments.ts';
import { formatOutbox, type OutboxFormat, outboxFileName } from './outboxFormat.ts';

export interface OutboxDeps {
  readonly db: StateDb;
  readonly outboxDir: string;
  readonly format: OutboxFormat;
  readonly clock: Clock;
  readonly log: Logger;
}

const tempName = (name: string) => `.${name}.tmp`;

/**
 * Hands orders to the ERP exactly once: the file is written under a hidden temporary name, the
 * hand-over is committed in state.db, then the file is renamed into view. A crash before the
 * commit leaves a temporary file that is deleted (the orders go out in a later file); a crash
 * after it leaves one that recoverOutbox renames.
 */
export async function exportShipments(
  records: readonly ShipmentRecord[],
  deps: OutboxDeps,
): Promise<{ file: string; count: number } | null> {
  if (records.length === 0) return null;
  const now = deps.clock.now();
  const kv = new KeyValueStore(deps.db);
  const seq = (kv.get('outbox.seq') ?? 0) + 1;
  kv.set('outbox.seq', seq, now);
  const name = outboxFileName(now, seq, deps.format);
  const temp = join(deps.outboxDir, tempName(name));
  await writeDurably(temp, formatOutbox(records, deps.format, now));
  new ShipmentStore(deps.db).markExported(
    records.map((r) => r.order_number),
    name,
    now,
  );
  await renameDurably(temp, join(deps.outboxDir, name));
  deps.log.info(
    { event: 'shipments.exported', file: name, count: records.length },
    `handed ${records.length} shipments to the ERP in ${name}`,
  );
  return { file: name, count: records.length };
}

/** Finishes or discards hand-overs a crash interrupted (run at start). */
export async function recoverOutbox(deps: OutboxDeps): Promise<void> {
  const store = new ShipmentStore(deps.db);
  for (const entry of await readdir(deps.outboxDir)) {
    const m = /^\.(.+)\.tmp$/.exec(entry);
    if (!m) continue;
    const name = m[1]!;
    const temp = join(deps.outboxDir, entry);
    if (store.exportedIn(name).length > 0) {
      await renameDurably(temp, join(deps.outboxDir, name));
      deps.log.info(
        { event: 'shipments.export_recovered', file: name },
        `finished the hand-over of ${name}`,
      );
    } else {
      await unlink(temp);
    }
  }
}
