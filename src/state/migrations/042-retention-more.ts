/**
 * Retention of every table (#40 point 2): shipments that left the ready-to-ship list unconfirmed
 * are pruned too, found by when they left.
 */
export const retentionMore = `
CREATE INDEX IF NOT EXISTS shipments_left_unconfirmed ON shipments (left_list_at)
  WHERE confirmed_at IS NULL AND left_list_at IS NOT NULL;
`;
