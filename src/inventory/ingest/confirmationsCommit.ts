import type { Stats } from 'node:fs';
import {
  type ConfirmationResult,
  storeConfirmations,
} from '../../state/shipments/confirmations.ts';
import type { CollectedFile } from './collect.ts';
import type { FileContext, FileOutcome } from './fileContext.ts';
import { afterCommit } from './finishFile.ts';
import { commit } from './ledgerCommit.ts';

/** A confirmations file: its rows stored in the commit transaction itself. */
export async function commitConfirmations(
  ctx: FileContext,
  st: Stats,
  hash: string,
  c: CollectedFile,
): Promise<FileOutcome> {
  let results: ConfirmationResult[] = [];
  const committed = commit(
    ctx,
    { kind: c.kind, hash, size: st.size, ino: st.ino },
    ({ ledgerId }) => {
      results = storeConfirmations(ctx.deps.db, c.confirmations, {
        fileId: ledgerId,
        now: ctx.clock.now(),
      });
      return { type: 'confirmations', read: c, results };
    },
  );
  const outcome = await afterCommit(ctx, committed, st);
  for (const r of results) {
    for (const old of r.replaced ?? []) {
      ctx.deps.log.info(
        {
          event: 'shipment.confirmation_replaced',
          file: ctx.name,
          line: r.line,
          order_number: r.orderNumber,
          action: old.action,
          was: { carrier: old.carrier, tracking_number: old.trackingNumber, status: old.status },
        },
        `${old.action} of ${r.orderNumber} corrected by line ${r.line} of ${ctx.name}`,
      );
    }
  }
  if (typeof committed !== 'object') return outcome;
  const counts = { new: 0, duplicate: 0, conflict: 0 };
  for (const r of results) counts[r.outcome]++;
  return { ...outcome, confirmations: counts };
}
