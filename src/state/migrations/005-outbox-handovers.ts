/**
 * Hand-overs to the ERP that are committed but whose outbox file may not be in place yet: the
 * file's name and exact content, written in the same transaction that marks its orders exported,
 * removed once the file is renamed into view. A crash in between is finished from here at start.
 */
export const outboxHandovers = `
CREATE TABLE outbox_handovers (
  name       TEXT PRIMARY KEY,
  content    TEXT NOT NULL,
  orders     INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
`;
