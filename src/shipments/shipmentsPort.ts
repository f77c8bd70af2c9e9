import type { Confirmation } from '../domain/shipment.ts';
import type { ShipmentRecord } from '../state/shipments/shipmentStore.ts';

/** What the shipment side needs of the portal; the API client provides it. */
export interface ShipmentsPort {
  readyToShip(signal?: AbortSignal): Promise<ShipmentRecord[]>;
  /**
   * Marks an order shipped or collected. With `afterUnanswered`, an earlier attempt may have
   * landed: a refusal is success only when the portal shows the action done (shipped; collected
   * for `collected`) with the same carrier and tracking. Throws the client's typed errors
   * otherwise (decide on them with the API's failurePolicy).
   */
  confirm(
    request: Confirmation,
    options: { afterUnanswered: boolean; signal?: AbortSignal },
  ): Promise<void>;
}
