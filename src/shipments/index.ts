/**
 * Shipments: the ready-to-ship poll and the exactly-once hand-over to `outbox/`, the ERP's
 * confirmations sent to the portal, the deadline and the unconfirmed watch. The only door into
 * src/shipments/ for the other folders: the jobs call the service `createShipments` builds;
 * `status`, the console and the schedules read the pure answers below.
 */

export type { ConfirmTotals } from './confirm.ts';
export type { OutboxFormat } from './outboxFormat.ts';
export {
  createShipments,
  type Shipments,
  type ShipmentsEdges,
} from './shipmentsService.ts';
export { deadlineCron, overdueShipments } from './watch.ts';
