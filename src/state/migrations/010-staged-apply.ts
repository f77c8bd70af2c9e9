/**
 * Ingestion in bounded memory (issue #14):
 * - desired_stock says which file and line set each row (`source_file_id` = inbox_files.id, NULL
 *   for the snapshot and for rows written before this migration; `source_line` = the line or
 *   record number);
 * - `staged_applies` holds one row per staged set whose apply was decided (the commit point) but
 *   not yet merged into desired_stock to the end: the merge runs in short transactions, each
 *   moving `after_*` (the last key merged) on, and the last one deletes the row. A row found at
 *   start is merged to the end before anything else (see src/state/staging/stagedApplyTable.ts).
 */
export const stagedApply = `
ALTER TABLE desired_stock ADD COLUMN source_file_id INTEGER;
ALTER TABLE desired_stock ADD COLUMN source_line INTEGER;
CREATE TABLE staged_applies (
  id               INTEGER PRIMARY KEY,
  staged_file      TEXT NOT NULL,
  source           TEXT NOT NULL,
  file_id          INTEGER,
  source_at        INTEGER NOT NULL,
  applied_at       INTEGER NOT NULL,
  after_kind       TEXT,
  after_dc         TEXT,
  after_sku        TEXT,
  rows             INTEGER NOT NULL DEFAULT 0,
  differing        INTEGER NOT NULL DEFAULT 0,
  newly_pending    INTEGER NOT NULL DEFAULT 0,
  failures_cleared INTEGER NOT NULL DEFAULT 0,
  superseded       INTEGER NOT NULL DEFAULT 0
);
`;
