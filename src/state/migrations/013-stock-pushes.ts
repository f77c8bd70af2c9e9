/**
 * The last push of each stock key and how the portal answered it (`explain`): one row per key,
 * replaced by every push of that key, so the table never holds more rows than keys pushed.
 * (Versions 10 to 12 and 14 to 16 are other branches' migrations.)
 */
export const stockPushes = `
CREATE TABLE stock_pushes (
  kind     TEXT NOT NULL,
  dc       TEXT NOT NULL,
  sku      TEXT NOT NULL,
  at       INTEGER NOT NULL,
  -- The quantity sent.
  quantity INTEGER NOT NULL,
  -- 'updated' (the portal took it) or 'rejected' (the portal refused it: see error).
  outcome  TEXT NOT NULL,
  -- The quantity the portal says it holds after an update, when it differs from the one sent.
  held     INTEGER,
  error    TEXT,
  PRIMARY KEY (kind, dc, sku)
) WITHOUT ROWID;
`;
