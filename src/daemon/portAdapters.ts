import type { PortalClient } from '../api/index.ts';
import type { ShipmentsPort } from '../shipments/ports.ts';
import type { StockReader, StockWriter } from '../sync/ports.ts';

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

/** Reconciliation reads through the client, in the 'reconcile' lane. */
export function stockReader(client: PortalClient): StockReader {
  return {
    async *pages(kind, cursor, signal) {
      const options = { lane: 'reconcile' as const, signal, cursor: cursor ?? undefined };
      if (kind === 'factory') {
        for await (const page of client.factoryStock.pages({}, options)) {
          yield {
            nextCursor: page.nextCursor,
            rows: page.items.map((i) => ({
              kind,
              dc: '',
              sku: i.sku,
              quantity: i.stock_quantity,
              platformSku: i.platform_sku ?? null,
            })),
          };
        }
      } else {
        for await (const page of client.dcStock.pages(options)) {
          yield {
            nextCursor: page.nextCursor,
            rows: page.items.map((i) => ({
              kind,
              dc: i.distribution_centre_code,
              sku: i.sku,
              quantity: i.stock_quantity,
              platformSku: i.platform_sku ?? null,
            })),
          };
        }
      }
    },
  };
}

/** Shipment calls through the client, in the 'shipments' lane (which may use the whole budget). */
export function shipmentsPort(client: PortalClient): ShipmentsPort {
  return {
    readyToShip: (signal) => client.shipments.readyToShip({ lane: 'shipments', signal }),
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
