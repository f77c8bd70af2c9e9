import { existsSync } from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../domain/clock.ts';
import { intoPlace, renameDurably, writeDurably } from '../files/durable.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { type Handover, OutboxHandovers } from '../state/shipments/outboxHandovers.ts';
import {
  type PollOutcome,
  type ShipmentRecord,
  ShipmentStore,
} from '../state/shipments/shipmentStore.ts';
import { formatOutbox, type OutboxFormat, outboxFileName } from './outboxFormat.ts';

export interface OutboxDeps {
  readonly db: StateDb;
  readonly outboxDir: string;
  readonly format: OutboxFormat;
  readonly clock: Clock;
  readonly log: Logger;
  /** Crash points for tests (a child process kills itself there). */
  readonly hooks?: {
    /** The hand-over is committed; no file written yet. */
    readonly afterCommit?: () => void;
    /** The file is written under its temporary name, not renamed into view yet. */
    readonly afterTempWrite?: () => void;
  };
}

const tempName = (name: string) => `.${name}.tmp`;

/**
 * Records one poll of the ready-to-ship list and hands its new orders to the ERP, in one
 * IMMEDIATE transaction: the list's upsert, the orders that left it, and, for the orders never
 * handed over, their exported mark together with the outbox file's name and exact content
 * (outbox_handovers). That commit is the hand-over: two processes on one state.db serialize here,
 * so an order is handed over once, and whatever happens to the process afterwards, the file can
 * be written from state.db (putInPlace, recoverOutbox), even when the order has left the list.
 */
export function recordPollAndHandOver(
  records: readonly ShipmentRecord[],
  deps: OutboxDeps,
): { outcome: PollOutcome; handover: Handover | null } {
  const shipments = new ShipmentStore(deps.db);
  const kv = new KeyValueStore(deps.db);
  const handovers = new OutboxHandovers(deps.db);
  const tx = deps.db.transaction(() => {
    const now = deps.clock.now();
    const outcome = shipments.recordPoll(records, now);
    if (outcome.toExport.length === 0) return { outcome, handover: null };
    const seq = (kv.get('outbox.seq') ?? 0) + 1;
    kv.set('outbox.seq', seq, now);
    const name = outboxFileName(now, seq, deps.format);
    const handover: Handover = {
      name,
      content: formatOutbox(outcome.toExport, deps.format, now),
      orders: outcome.toExport.length,
      createdAt: now,
    };
    shipments.markExported(
      outcome.toExport.map((r) => r.order_number),
      name,
      now,
    );
    handovers.record(handover);
    return { outcome, handover };
  });
  const done = tx.immediate();
  if (done.handover) deps.hooks?.afterCommit?.();
  return done;
}

/**
 * Puts a committed hand-over's file in view: written under a hidden temporary name and flushed,
 * then renamed (so the ERP never reads half a file), then forgotten in state.db. Safe to repeat:
 * a file already in place is left as it is.
 */
export async function putInPlace(h: Handover, deps: OutboxDeps): Promise<void> {
  const final = join(deps.outboxDir, h.name);
  // A full disk leaves no empty or partial file; the hand-over stays in state.db.
  if (!existsSync(final)) {
    await intoPlace(
      final,
      async (tmp) => {
        await writeDurably(tmp, h.content);
        deps.hooks?.afterTempWrite?.();
      },
      join(deps.outboxDir, tempName(h.name)),
    );
  }
  new OutboxHandovers(deps.db).finished(h.name);
}

/**
 * Finishes the hand-overs a crash (or a failed write) interrupted, from state.db, and removes
 * temporary files nothing refers to. Run at start and before each poll.
 */
export async function recoverOutbox(deps: OutboxDeps): Promise<void> {
  const unfinished = new OutboxHandovers(deps.db).unfinished();
  for (const h of unfinished) {
    await putInPlace(h, deps);
    deps.log.info(
      { event: 'shipments.export_recovered', file: h.name, count: h.orders },
      `finished the hand-over of ${h.name}`,
    );
  }
  const store = new ShipmentStore(deps.db);
  for (const entry of await readdir(deps.outboxDir)) {
    const m = /^\.(.+)\.tmp$/.exec(entry);
    if (!m) continue;
    const name = m[1]!;
    const temp = join(deps.outboxDir, entry);
    // A temporary file of a hand-over recorded before outbox_handovers existed: finish it.
    if (!existsSync(join(deps.outboxDir, name)) && store.exportedIn(name).length > 0) {
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
