/**
 * Notifications by webhook (NOTIFY_WEBHOOK_URL): the outbox of events still to deliver, each
 * written in the transaction of the fact it tells where the fact is in state.db, and delivered by
 * its own loop, oldest first within an event kind. `uuid` names a notification across retries (a
 * receiver drops a repeat by it); `body` is the JSON sent, fixed at enqueue. AUTOINCREMENT: an id
 * is never given twice, so that the order of a kind is the order of its ids even after deletes.
 * The totals count delivered, failed attempts and dropped per event kind for the metrics.
 * (Versions 18 and 19 are left to other branches.)
 */
export const notifyOutbox = `
CREATE TABLE notify_outbox (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid        TEXT NOT NULL UNIQUE,
  event       TEXT NOT NULL,
  body        TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  attempts    INTEGER NOT NULL DEFAULT 0,
  next_at     INTEGER NOT NULL,
  last_error  TEXT
);
CREATE INDEX notify_outbox_event ON notify_outbox (event, id);

CREATE TABLE notify_totals (
  event   TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'failed_attempts', 'dropped')),
  count   INTEGER NOT NULL,
  PRIMARY KEY (event, outcome)
) WITHOUT ROWID;
`;
