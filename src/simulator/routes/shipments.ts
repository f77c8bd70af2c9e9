/** Shipments: list, ready-to-ship, one by order number, mark shipped, mark collected. */
import {
  type ApiContext,
  type ApiRequest,
  type ApiResponse,
  param,
  type RouteDef,
} from '../context.ts';
import { conflict, invalidParameter, notFound } from '../httpError.ts';
import { SHIPMENT_STATUSES, type ShipmentRecord } from '../model.ts';
import { enumQuery, intQuery, objectBody, requiredString } from '../params.ts';

/**
 * A shipment list: `{data}` whole (the default, the spec shows no pagination), or with the
 * `shipmentsPerPage` knob one page by number (`?page=N`), Laravel's length-aware shape.
 */
function shipmentList(req: ApiRequest, ctx: ApiContext, all: ShipmentRecord[]): ApiResponse {
  const perPage = ctx.knobs().shipmentsPerPage;
  if (perPage === null) return { status: 200, body: { data: all } };
  const lastPage = Math.max(1, Math.ceil(all.length / perPage));
  const page = intQuery(req.query, 'page', 1, Number.MAX_SAFE_INTEGER) ?? 1;
  const path = `${req.url.origin}${req.url.pathname}`;
  const link = (n: number) => {
    const q = new URLSearchParams(req.query);
    q.set('page', String(n));
    return `${path}?${q.toString()}`;
  };
  return {
    status: 200,
    body: {
      data: all.slice((page - 1) * perPage, page * perPage),
      links: {
        first: link(1),
        last: link(lastPage),
        prev: page > 1 ? link(page - 1) : null,
        next: page < lastPage ? link(page + 1) : null,
      },
      meta: {
        current_page: page,
        last_page: lastPage,
        per_page: perPage,
        total: all.length,
        path,
      },
    },
  };
}

function list(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const status = enumQuery(req.query, 'status', SHIPMENT_STATUSES);
  const all = ctx.store.allShipments();
  return shipmentList(req, ctx, status ? all.filter((s) => s.status === status) : all);
}

function readyToShip(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const today = ctx.today();
  const data = ctx.store
    .allShipments()
    .filter((s) => s.ship_by === today && !s.is_shipped && !s.is_collected);
  return shipmentList(req, ctx, data);
}

function one(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const orderNumber = param(req, 'order_number');
  const shipment = ctx.store.shipment(orderNumber);
  if (!shipment) throw notFound('order_number', `Shipment ${orderNumber} not found.`);
  return { status: 200, body: { data: shipment } };
}

function carrierBody(req: ApiRequest): {
  carrier: string;
  tracking: string;
  body: Record<string, unknown>;
} {
  const body = objectBody(req.body);
  return {
    carrier: requiredString(body, 'carrier').trim(),
    tracking: requiredString(body, 'tracking_number').trim(),
    body,
  };
}

function shipped(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const orderNumber = param(req, 'order_number');
  if (!ctx.store.shipment(orderNumber)) {
    throw notFound('order_number', `Shipment ${orderNumber} not found.`);
  }
  const { carrier, tracking, body } = carrierBody(req);
  const isCollected = body.is_collected;
  if (isCollected !== undefined && isCollected !== null && typeof isCollected !== 'boolean') {
    throw invalidParameter('is_collected', 'The is_collected field must be true or false.');
  }
  const at = new Date(ctx.now()).toISOString();
  const data = ctx.store.markShipped(orderNumber, carrier, tracking, isCollected === true, at);
  return { status: 200, body: { message: 'Shipment marked as shipped', data } };
}

function collected(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const orderNumber = param(req, 'order_number');
  if (!ctx.store.shipment(orderNumber)) {
    throw notFound('order_number', `Shipment ${orderNumber} not found.`);
  }
  const { carrier, tracking } = carrierBody(req);
  const shipment = ctx.store.shipment(orderNumber);
  if (ctx.knobs().collectedNeedsShipped && !shipment?.is_shipped && !shipment?.is_collected) {
    throw conflict(
      'not_shipped',
      'order_number',
      `Shipment ${orderNumber} has not been shipped yet.`,
    );
  }
  const at = new Date(ctx.now()).toISOString();
  const data = ctx.store.markCollected(orderNumber, carrier, tracking, at);
  return { status: 200, body: { message: 'Shipment marked as collected', data } };
}

export const shipmentRoutes: RouteDef[] = [
  { method: 'GET', pattern: '/shipments', auth: true, handler: list },
  { method: 'GET', pattern: '/shipments/ready-to-ship', auth: true, handler: readyToShip },
  { method: 'GET', pattern: '/shipments/:order_number', auth: true, handler: one },
  { method: 'POST', pattern: '/shipments/:order_number/shipped', auth: true, handler: shipped },
  { method: 'POST', pattern: '/shipments/:order_number/collected', auth: true, handler: collected },
];
