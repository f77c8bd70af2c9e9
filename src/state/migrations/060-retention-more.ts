/**
 * Retention of every table (#40 point 2): shipments that left the ready-to-ship list unconfirmed
 * are pruned too, found by when they left. (Versions 32–59 are other branches' migrations; this
 * branch keeps to 60–69.)
 */
export const retentionMore = `
CREATE INDEX IF NOT EXISTS shipments_left_unconfirmed ON shipments (left_list_at)
  WHERE confirmed_at IS NULL AND left_list_at IS NOT NULL;
`;
