import type { Confirmation } from '../domain/shipment.ts';
import type { ShipmentRecord } from '../state/shipments.ts';

/** What the shipment side needs of the portal; the API client provides it. */
export interface ShipmentsPort {
  readyToShip(signal?: AbortSignal): Promise<ShipmentRecord[]>;
  /**
   * Marks an order shipped or collected. With `afterUnanswered`, an earlier attempt may have
   * landed: an "already shipped/collected" answer with the same carrier and tracking is success.
   * Throws the client's typed errors otherwise.
   */
  confirm(
    request: Confirmation,
    options: { afterUnanswered: boolean; signal?: AbortSignal },
  ): Promise<void>;
}
