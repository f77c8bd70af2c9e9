/**
 * Guard rails: what they hold. One row per held stock file or snapshot read, and the rows it
 * would have written (kept aside: a held snapshot read is applied from them on release, and
 * `explain` finds the held set that names a key). A held file itself waits in held/.
 */
export const heldTables = `
CREATE TABLE held (
  id           INTEGER PRIMARY KEY,
  source       TEXT NOT NULL CHECK (source IN ('file', 'snapshot')),
  file_id      INTEGER,
  name         TEXT NOT NULL,
  stored_as    TEXT,
  kind         TEXT,
  content_hash TEXT NOT NULL,
  reason       TEXT NOT NULL,
  report       TEXT NOT NULL,
  source_at    INTEGER NOT NULL,
  held_at      INTEGER NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('held', 'released', 'rejected', 'superseded')),
  decided_at   INTEGER
);
CREATE INDEX held_status ON held (status, source);
CREATE INDEX held_hash ON held (content_hash);

CREATE TABLE held_rows (
  held_id  INTEGER NOT NULL,
  kind     TEXT NOT NULL,
  dc       TEXT NOT NULL,
  sku      TEXT NOT NULL,
  quantity INTEGER NOT NULL,
  PRIMARY KEY (held_id, kind, dc, sku)
) WITHOUT ROWID;
CREATE INDEX held_rows_key ON held_rows (kind, dc, sku);
`;
