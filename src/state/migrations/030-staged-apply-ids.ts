/**
 * `staged_applies` again (issue #28), with AUTOINCREMENT: an id is never given twice, so a writer
 * that still names an apply finished (and deleted) meanwhile cannot take another's row for its
 * own. `held_id` names the held snapshot read whose release the apply is (a second `release` of
 * it finishes that apply). (Versions 18–29 are left to other branches' migrations.)
 */
export const stagedApplyIds = `
CREATE TABLE staged_applies_new (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
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
  superseded       INTEGER NOT NULL DEFAULT 0,
  offers           TEXT,
  held_id          INTEGER
);
INSERT INTO staged_applies_new (id, staged_file, source, file_id, source_at, applied_at,
       after_kind, after_dc, after_sku, rows, differing, newly_pending, failures_cleared,
       superseded, offers)
SELECT id, staged_file, source, file_id, source_at, applied_at, after_kind, after_dc, after_sku,
       rows, differing, newly_pending, failures_cleared, superseded, offers
  FROM staged_applies;
DROP TABLE staged_applies;
ALTER TABLE staged_applies_new RENAME TO staged_applies;
`;
