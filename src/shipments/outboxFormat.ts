import type { ShipmentRecord } from '../state/shipments/shipmentStore.ts';

export type OutboxFormat = 'json' | 'csv';

/**
 * The name of a ready-to-ship file: sorts by time (UTC, to the millisecond) and cannot collide
 * within one data dir (the sequence number breaks ties).
 */
export function outboxFileName(now: number, seq: number, format: OutboxFormat): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace('.', '');
  return `ready-to-ship-${stamp}-${String(seq).padStart(6, '0')}.${format}`;
}

/**
 * The content of a ready-to-ship file. JSON: an object with the time it was made, the count and
 * the shipments as the portal listed them. CSV: a header of every field seen (order_number first),
 * one row per shipment, nested values (items) as JSON text in their cell.
 */
export function formatOutbox(
  records: readonly ShipmentRecord[],
  format: OutboxFormat,
  now: number,
): string {
  if (format === 'json') {
    return `${JSON.stringify({ generated_at: new Date(now).toISOString(), count: records.length, shipments: records }, null, 2)}\n`;
  }
  const fields = ['order_number'];
  for (const r of records) for (const k of Object.keys(r)) if (!fields.includes(k)) fields.push(k);
  const lines = [fields.map(csvCell).join(',')];
  for (const r of records) lines.push(fields.map((f) => csvCell(r[f])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
