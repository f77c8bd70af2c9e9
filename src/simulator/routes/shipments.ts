/** Shipments: list, ready-to-ship, one by order number, mark shipped, mark collected. */
import {
  type ApiContext,
  type ApiRequest,
  type ApiResponse,
  param,
  type RouteDef,
} from '../context.ts';
import { invalidParameter, notFound } from '../errors.ts';
import { SHIPMENT_STATUSES } from '../model.ts';
import { enumQuery, objectBody, requiredString } from '../params.ts';

function list(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const status = enumQuery(req.query, 'status', SHIPMENT_STATUSES);
  const all = ctx.store.allShipments();
  return { status: 200, body: { data: status ? all.filter((s) => s.status === status) : all } };
}

function readyToShip(_req: ApiRequest, ctx: ApiContext): ApiResponse {
  const today = ctx.today();
  const data = ctx.store
    .allShipments()
    .filter((s) => s.ship_by === today && !s.is_shipped && !s.is_collected);
  return { status: 200, body: { data } };
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
