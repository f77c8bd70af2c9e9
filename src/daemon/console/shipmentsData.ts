import { overdueShipments } from '../../shipments/index.ts';
import { ShipmentStore } from '../../state/shipments/shipmentStore.ts';
import type { ConsoleDeps } from './consoleDeps.ts';
import type { ShipmentsData } from './pages/shipmentsPage.ts';

/** Most shipments the page lists (the oldest hand-overs first). */
const SHIPMENTS_LISTED = 500;

export function overdueOrders(deps: ConsoleDeps): string[] | null {
  return overdueShipments(deps.db, deps.now(), deps.config.timezone, deps.config.shipmentsDeadline);
}

export function shipmentsData(deps: ConsoleDeps): ShipmentsData {
  const store = new ShipmentStore(deps.db);
  return {
    awaiting: store.awaiting(SHIPMENTS_LISTED),
    awaitingCount: store.counts().awaitingConfirmation,
    deadline: deps.config.shipmentsDeadline ?? null,
    overdue: overdueOrders(deps),
  };
}
