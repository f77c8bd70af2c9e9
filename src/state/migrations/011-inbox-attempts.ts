/**
 * Migration 11 (#13 points 1 and 4).
 *
 * Failed attempts at an inbox file (#13 point 1): an error that is not an I/O error, met on the
 * same file again and again, is counted here (durably, across restarts) so that the file goes
 * to failed/ after a few tries instead of being offered for ever. A row is keyed by the file as
 * it was tried (the inbox's fileIdentity: name, inode, size and modification time); a file
 * rewritten or replaced starts again from zero. Rows go once the file is handled (or no longer there).
 */
export const inboxAttempts = `
CREATE TABLE IF NOT EXISTS inbox_attempts (
  identity   TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  attempts   INTEGER NOT NULL,
  last_error TEXT NOT NULL,
  first_at   INTEGER NOT NULL,
  last_at    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS inbox_attempts_name ON inbox_attempts (name);

-- #13 point 4: a file dated in the future pinned its rows until that date (source_at from its
-- mtime). Rows are now ordered by a time never later than when they were applied; rows stored
-- before are brought under the same rule.
UPDATE desired_stock SET source_at = updated_at WHERE source_at > updated_at;
`;
