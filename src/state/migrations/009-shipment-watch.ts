/**
 * Shipments awaiting confirmation are watched: each is named once when it has waited too long
 * (unconfirmed_warned_at), and the deadline check and the status find them by an index.
 */
export const shipmentWatch = `
ALTER TABLE shipments ADD COLUMN unconfirmed_warned_at INTEGER;
CREATE INDEX shipments_awaiting ON shipments (exported_at)
  WHERE exported_at IS NOT NULL AND confirmed_at IS NULL AND left_list_at IS NULL;
`;
