/**
 * One writer per data dir (issue #28):
 * - `writer_lock`: who holds the data dir's writer lock (the lock itself is an OS lock on
 *   `writer.lock`, see src/state/lock/writerLock.ts): one row, written by each new holder;
 * - `operator_requests`: the work a command asks of the daemon that holds the lock (release,
 *   reject, failures retry, pause, resume), and the daemon's answer (see
 *   src/state/lock/operatorRequests.ts).
 */
export const oneWriter = `
CREATE TABLE writer_lock (
  one    INTEGER PRIMARY KEY CHECK (one = 1),
  owner  TEXT NOT NULL,
  role   TEXT NOT NULL,
  host   TEXT NOT NULL,
  pid    INTEGER NOT NULL,
  since  INTEGER NOT NULL
);
CREATE TABLE operator_requests (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  action       TEXT NOT NULL,
  args         TEXT NOT NULL,
  asked_at     INTEGER NOT NULL,
  taken_at     INTEGER,
  done_at      INTEGER,
  answer       TEXT,
  cancelled_at INTEGER
);
`;
