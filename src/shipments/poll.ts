import { KeyValueStore } from '../state/kv.ts';
import { ShipmentStore } from '../state/shipments.ts';
import { exportShipments, type OutboxDeps } from './outbox.ts';
import type { ShipmentsPort } from './ports.ts';

/**
 * Fetches the orders ready to ship today, records them, notes those that left the list, and hands
 * the ones never handed over to the ERP in one outbox file.
 */
export async function pollReadyToShip(
  deps: OutboxDeps & { readonly port: ShipmentsPort; readonly signal?: AbortSignal },
) {
  const records = await deps.port.readyToShip(deps.signal);
  const outcome = new ShipmentStore(deps.db).recordPoll(records, deps.clock.now());
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
  const exported = await exportShipments(outcome.toExport, deps);
  new KeyValueStore(deps.db).set('shipments.last_poll', {
    at: deps.clock.now(),
    count: outcome.listed,
    new: outcome.toExport.length,
    file: exported?.file ?? null,
  });
  return { ...outcome, exported };
}
