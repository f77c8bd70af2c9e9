import type { Confirmation } from '../domain/shipment.ts';
import type { ShipmentRecord } from '../state/shipments/shipmentStore.ts';
import type { PortalClient } from './client.ts';

/**
 * The portal as the shipments flow sees it (src/shipments/): polls in the 'poll' lane (which
 * leaves a share for stock pushes), confirmations in the 'shipments' lane (which may use the
 * whole budget).
 */
export interface ShipmentsPortal {
  readyToShip(signal?: AbortSignal): Promise<ShipmentRecord[]>;
  /**
   * Marks an order shipped or collected. With `afterUnanswered`, an earlier attempt may have
   * landed: a refusal is success only when the portal shows the action done (shipped; collected
   * for `collected`) with the same carrier and tracking. Throws the client's typed errors
   * otherwise (decide on them with the failure policy).
   */
  confirm(
    request: Confirmation,
    options: { afterUnanswered: boolean; signal?: AbortSignal },
  ): Promise<void>;
}

export function shipmentsPortal(client: PortalClient): ShipmentsPortal {
  return {
    readyToShip: (signal) => client.shipments.readyToShip({ lane: 'poll', signal }),
    async confirm(c, { afterUnanswered, signal }) {
      const options = {
        lane: 'shipments' as const,
        signal,
        previousAttemptUnanswered: afterUnanswered,
      };
      const input = { carrier: c.carrier, tracking_number: c.trackingNumber };
      if (c.action === 'collected') await client.shipments.collected(c.orderNumber, input, options);
      else
        await client.shipments.shipped(
          c.orderNumber,
          { ...input, is_collected: c.isCollected },
          options,
        );
    },
  };
}
