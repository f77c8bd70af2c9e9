import type { Clock } from '../domain/clock.ts';
import { localTimeOfDay, startOfLocalDay } from '../domain/localTime.ts';
import { overdueNotification } from '../domain/notification.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { enqueueNotification } from '../state/notify/notifyOutbox.ts';
import { ShipmentStore } from '../state/shipments/shipmentStore.ts';

/** Most order numbers named in one log line; the rest are counted. */
const ORDERS_LOGGED = 100;

export interface ShipmentWatchDeps {
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  /** SYNC_TIMEZONE: "the day" and the deadline are local to it. */
  readonly timezone: string;
  /** SHIPMENTS_DEADLINE, `HH:MM` or `HH:MM:SS`; undefined: no deadline. */
  readonly deadline?: string | undefined;
  /** SHIPMENTS_CONFIRM_WARN_MS. */
  readonly confirmWarnMs: number;
}

/** The deadline as a 6-field cron expression (seconds first) that fires at it every day. */
export function deadlineCron(deadline: string): string {
  const [h, m, s = '0'] = deadline.split(':');
  return `${Number(s)} ${Number(m)} ${Number(h)} * * *`;
}

/** The instant of the deadline on the local day of `now`. */
export function deadlineOn(now: number, timezone: string, deadline: string): number {
  const [h, m, s = 0] = deadline.split(':').map(Number);
  return localTimeOfDay(now, timezone, h!, m!, s);
}

/**
 * The orders handed to the ERP today and still unconfirmed, once today's deadline has passed;
 * null before it, or without a deadline. Read live, so the list shrinks as confirmations land.
 */
export function overdueShipments(
  db: StateDb,
  now: number,
  timezone: string,
  deadline: string | undefined,
): string[] | null {
  if (deadline === undefined || now < deadlineOn(now, timezone, deadline)) return null;
  return new ShipmentStore(db).awaitingSince(startOfLocalDay(now, timezone));
}

/**
 * At the deadline: one `shipments.overdue` warning naming the orders handed over today and not
 * confirmed, or `shipments.deadline_met` when there are none. Returns the overdue orders.
 */
export function checkDeadline(deps: ShipmentWatchDeps): string[] {
  const now = deps.clock.now();
  const orders = overdueShipments(deps.db, now, deps.timezone, deps.deadline) ?? [];
  if (orders.length === 0) {
    deps.log.info(
      { event: 'shipments.deadline_met', deadline: deps.deadline },
      `every shipment handed over today is confirmed by ${deps.deadline}`,
    );
    return orders;
  }
  deps.log.warn(
    {
      event: 'shipments.overdue',
      deadline: deps.deadline,
      count: orders.length,
      orders: orders.slice(0, ORDERS_LOGGED),
      ordersOmitted: Math.max(0, orders.length - ORDERS_LOGGED),
    },
    `${orders.length} shipment(s) handed to the ERP today are not confirmed by ${deps.deadline}: ${orders.slice(0, 10).join(', ')}${orders.length > 10 ? ', …' : ''}`,
  );
  enqueueNotification(deps.db, overdueNotification(orders, deps.deadline!, now));
  return orders;
}

/**
 * Names, once each, the shipments handed over more than SHIPMENTS_CONFIRM_WARN_MS ago and still
 * without a confirmation, in one `shipments.unconfirmed` warning. Returns how many were named.
 */
export function checkUnconfirmed(deps: ShipmentWatchDeps): number {
  const now = deps.clock.now();
  const late = new ShipmentStore(deps.db).takeUnconfirmedBefore(now - deps.confirmWarnMs, now);
  if (late.length === 0) return 0;
  const orders = late.map((l) => l.orderNumber);
  deps.log.warn(
    {
      event: 'shipments.unconfirmed',
      count: late.length,
      orders: orders.slice(0, ORDERS_LOGGED),
      ordersOmitted: Math.max(0, orders.length - ORDERS_LOGGED),
      oldestHandedOverAt: new Date(late[0]!.exportedAt).toISOString(),
      warnAfterMs: deps.confirmWarnMs,
    },
    `${late.length} shipment(s) handed to the ERP over ${Math.round(deps.confirmWarnMs / 60_000)} min ago still have no confirmation: ${orders.slice(0, 10).join(', ')}${orders.length > 10 ? ', …' : ''}`,
  );
  return late.length;
}
