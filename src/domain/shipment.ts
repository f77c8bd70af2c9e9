/** What the ERP can confirm for an order: it was shipped, or the carrier collected it. */
export type ShipmentAction = 'shipped' | 'collected';

/** One confirmation as the ERP sent it: an action, with its carrier and tracking number. */
export interface Confirmation {
  readonly orderNumber: string;
  readonly action: ShipmentAction;
  readonly carrier: string;
  readonly trackingNumber: string;
  /** shipped only: the carrier already collected it. */
  readonly isCollected: boolean;
}
