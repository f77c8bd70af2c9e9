import { z } from 'zod';
import { errorDetails } from '../body.ts';
import { type Caller, callJson, describe, seg } from '../caller.ts';
import { fetchAll } from '../pagination.ts';
import { PortalHttpError, refusesContent } from '../portalErrors.ts';
import { type CallOptions, expectOk } from '../request.ts';
import { type Shipment, shipmentSchema } from '../schemas.ts';

export interface ShipmentActionInput {
  readonly carrier: string;
  readonly tracking_number: string;
  /** shipped only: true when the carrier already collected it. */
  readonly is_collected?: boolean;
}

export interface ShipmentActionOptions extends CallOptions {
  /**
   * An earlier attempt of this same action went unanswered (e.g. before a crash): a 4xx answer is
   * then checked with GET /shipments/{order}, and counts as success only when the portal shows
   * the action done (shipped; collected for `collected` or `is_collected`) with the carrier and
   * tracking number sent.
   */
  readonly previousAttemptUnanswered?: boolean;
}

export interface ShipmentActionResult {
  readonly status: number;
  /** The answer's body, as sent (the spec does not show it). */
  readonly body: unknown;
  /** True when the portal already showed this action done (an earlier, unanswered attempt landed). */
  readonly alreadyDone: boolean;
}

export interface ShipmentsApi {
  /** GET /shipments, optionally filtered by status. */
  list(query?: { status?: string }, options?: CallOptions): Promise<Shipment[]>;
  /** GET /shipments/ready-to-ship */
  readyToShip(options?: CallOptions): Promise<Shipment[]>;
  /** GET /shipments/{order_number} */
  get(orderNumber: string, options?: CallOptions): Promise<Shipment>;
  /** POST /shipments/{order_number}/shipped */
  shipped(
    orderNumber: string,
    input: ShipmentActionInput,
    options?: ShipmentActionOptions,
  ): Promise<ShipmentActionResult>;
  /** POST /shipments/{order_number}/collected */
  collected(
    orderNumber: string,
    input: Omit<ShipmentActionInput, 'is_collected'>,
    options?: ShipmentActionOptions,
  ): Promise<ShipmentActionResult>;
}

/** One shipment: `{data: {...}}` or the record itself (the spec does not show which). */
const oneShipmentSchema = z
  .union([z.looseObject({ data: shipmentSchema }), shipmentSchema])
  .transform((b) =>
    'data' in b && typeof b.data === 'object' ? (b.data as Shipment) : (b as Shipment),
  );

export function shipmentsApi(caller: Caller): ShipmentsApi {
  const get = async (orderNumber: string, options?: CallOptions) =>
    callJson(
      caller,
      { method: 'GET', path: `shipments/${seg(orderNumber)}`, resend: 'always' },
      oneShipmentSchema,
      options,
    );

  const action = async (
    kind: 'shipped' | 'collected',
    orderNumber: string,
    input: ShipmentActionInput,
    options: ShipmentActionOptions = {},
  ): Promise<ShipmentActionResult> => {
    const spec = {
      method: 'POST',
      path: `shipments/${seg(orderNumber)}/${kind}`,
      json: input,
      // Resent only when no answer came: an answered failure must not be repeated blindly.
      resend: 'unanswered',
    } as const;
    const response = await caller.send(spec, options);
    if (response.status >= 200 && response.status < 300) {
      return { status: response.status, body: response.body, alreadyDone: false };
    }
    const uncertain = response.resentAfterNoAnswer || options.previousAttemptUnanswered === true;
    if (refusesContent(response.status) && (uncertain || kind === 'collected')) {
      // Ask the portal what it holds rather than read the message.
      const shipment = await get(orderNumber, options);
      if (uncertain && shownDone(kind, shipment, input)) {
        return { status: response.status, body: response.body, alreadyDone: true };
      }
      if (kind === 'collected' && !shownShipped(shipment)) {
        // Refused because the order is not shipped yet (its "shipped" is still on its way):
        // worth sending again once it is, so not a final refusal.
        throw new PortalHttpError(
          `${describe(spec)}: HTTP ${response.status}: refused while the portal shows the order not shipped yet`,
          { status: response.status, ...errorDetails(response.raw), retryable: true },
        );
      }
    }
    expectOk(response, describe(spec));
    return { status: response.status, body: response.body, alreadyDone: false };
  };

  return {
    list: ({ status } = {}, options) =>
      fetchAll(
        caller,
        { method: 'GET', path: 'shipments', searchParams: { status } },
        shipmentSchema,
        options,
      ),
    readyToShip: (options) =>
      fetchAll(caller, { method: 'GET', path: 'shipments/ready-to-ship' }, shipmentSchema, options),
    get,
    shipped: (orderNumber, input, options) => action('shipped', orderNumber, input, options),
    collected: (orderNumber, input, options) => action('collected', orderNumber, input, options),
  };
}

/**
 * The portal shows the action done: shipped (or collected, which implies it) for `shipped`, and
 * collected as well when `is_collected` was sent; collected for `collected`; each with the carrier
 * and tracking number sent. Matching tracking alone is not enough: a shipped order carries the
 * tracking number its `collected` will send too.
 */
function shownDone(
  kind: 'shipped' | 'collected',
  shipment: Shipment,
  input: ShipmentActionInput,
): boolean {
  const sameParcel =
    same(shipment.carrier, input.carrier) && same(shipment.tracking_number, input.tracking_number);
  if (!sameParcel) return false;
  if (kind === 'collected' || input.is_collected === true) return shownCollected(shipment);
  return shownShipped(shipment);
}

function shownShipped(shipment: Shipment): boolean {
  return shipment.status === 'shipped' || shipment.is_shipped === true || shownCollected(shipment);
}

function shownCollected(shipment: Shipment): boolean {
  return shipment.status === 'collected' || shipment.is_collected === true;
}

function same(held: string | null | undefined, sent: string): boolean {
  return typeof held === 'string' && held.trim() === sent.trim();
}
