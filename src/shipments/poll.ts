import type { ShipmentsPortal } from '../api/index.ts';
import { KeyValueStore } from '../state/kv.ts';
import { type OutboxDeps, putInPlace, recordPollAndHandOver, recoverOutbox } from './outbox.ts';

/**
 * Fetches the orders ready to ship today, records them, notes those that left the list, and hands
 * the ones never handed over to the ERP in one outbox file (committed with the poll, then put in
 * place). A hand-over an earlier run could not finish is finished first.
 */
export async function pollReadyToShip(
  deps: OutboxDeps & { readonly port: ShipmentsPortal; readonly signal?: AbortSignal },
) {
  await recoverOutbox(deps);
  const records = await deps.port.readyToShip(deps.signal);
  const { outcome, handover } = recordPollAndHandOver(records, deps);
  deps.log.info(
    {
      event: 'shipments.polled',
      count: outcome.listed,
      new: outcome.toExport.length,
      leftList: outcome.leftList.length,
    },
    `${outcome.listed} shipments ready to ship, ${outcome.toExport.length} new`,
  );
  for (const order of outcome.leftList) {
    deps.log.info(
      { event: 'shipment.left_list', order_number: order },
      `order ${order} left the ready-to-ship list`,
    );
  }
  if (handover) {
    await putInPlace(handover, deps);
    deps.log.info(
      { event: 'shipments.exported', file: handover.name, count: handover.orders },
      `handed ${handover.orders} shipments to the ERP in ${handover.name}`,
    );
  }
  const exported = handover && { file: handover.name, count: handover.orders };
  new KeyValueStore(deps.db).set('shipments.last_poll', {
    at: deps.clock.now(),
    count: outcome.listed,
    new: outcome.toExport.length,
    file: exported?.file ?? null,
  });
  return { ...outcome, exported };
}
