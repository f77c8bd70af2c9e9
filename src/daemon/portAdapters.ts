import type { PortalClient } from '../api/index.ts';
import type { ShipmentsPort } from '../shipments/shipmentsPort.ts';
import type { StockReader, StockWriter } from '../sync/stockPorts.ts';

/** Stock pushes through the client, in the 'stock' lane of the budget. */
export function stockWriter(client: PortalClient): StockWriter {
  return {
    maxBatchSize: (kind) => client.maxBatchSize(kind),
    batchSizeLearntAt: (kind) => client.batchSizeLearntAt(kind),
    forgetBatchSize: (kind) => client.forgetBatchSize(kind),
    async bulkUpdate(kind, rows, signal) {
      const options = { lane: 'stock' as const, signal };
      const result =
        kind === 'factory'
          ? await client.factoryStock.bulkUpdate(
              rows.map((r) => ({ sku: r.sku, stock_quantity: r.quantity })),
              options,
            )
          : await client.dcStock.bulkUpdate(
              rows.map((r) => ({
                distribution_centre_code: r.dc,
                sku: r.sku,
                stock_quantity: r.quantity,
              })),
              options,
            );
      return { updated: result.updated, errors: result.errors };
    },
  };
}

/**
 * Stock reads through the client, one page a call: in the 'reconcile' lane, or in the 'stock'
 * lane when the read serves a push (a first start).
 */
export function stockReader(client: PortalClient): StockReader {
  return {
    async page(kind, cursor, { signal, forPush } = {}) {
      const options = { lane: forPush ? ('stock' as const) : ('reconcile' as const), signal };
      const query = cursor === null ? {} : { cursor };
      if (kind === 'factory') {
        const page = await client.factoryStock.list(query, options);
        return {
          nextCursor: page.nextCursor,
          total: page.total,
          rows: page.items.map((i) => ({
            kind,
            dc: '',
            sku: i.sku,
            quantity: i.stock_quantity,
            platformSku: i.platform_sku ?? null,
          })),
        };
      }
      const page = await client.dcStock.list(query, options);
      return {
        nextCursor: page.nextCursor,
        total: page.total,
        rows: page.items.map((i) => ({
          kind,
          dc: i.distribution_centre_code,
          sku: i.sku,
          quantity: i.stock_quantity,
          platformSku: i.platform_sku ?? null,
        })),
      };
    },
  };
}

/**
 * Shipment calls through the client: polls in the 'poll' lane (which leaves a share for stock
 * pushes), confirmations in the 'shipments' lane (which may use the whole budget).
 */
export function shipmentsPort(client: PortalClient): ShipmentsPort {
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
