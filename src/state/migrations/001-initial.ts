/**
 * The first schema. Stock keys are (kind, dc, sku): kind is 'factory' or 'dc', and dc is '' for
 * factory stock, so one primary key serves both kinds. Times are epoch milliseconds.
 */
export const initialSchema = `
CREATE TABLE kv (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;

-- The portal token that survives restarts (one row).
CREATE TABLE auth_token (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  token       TEXT NOT NULL,
  account     TEXT NOT NULL,
  obtained_at INTEGER NOT NULL
);

-- Every login attempt, for the rolling-hour login cap that holds across restarts.
CREATE TABLE login_attempts (
  id      INTEGER PRIMARY KEY,
  at      INTEGER NOT NULL,
  account TEXT NOT NULL,
  outcome TEXT NOT NULL
);
CREATE INDEX login_attempts_at ON login_attempts (at);

-- Every call but login, for the rolling-hour budget shared by all processes on this data dir.
CREATE TABLE api_calls (
  id   INTEGER PRIMARY KEY,
  at   INTEGER NOT NULL,
  lane TEXT NOT NULL
);
CREATE INDEX api_calls_at ON api_calls (at);

-- What the ERP asked for.
CREATE TABLE desired_stock (
  kind       TEXT NOT NULL,
  dc         TEXT NOT NULL,
  sku        TEXT NOT NULL,
  quantity   INTEGER NOT NULL,
  source     TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (kind, dc, sku)
) WITHOUT ROWID;

-- What the portal is known to hold (from pushes that succeeded and from reconciliation reads).
CREATE TABLE remote_stock (
  kind         TEXT NOT NULL,
  dc           TEXT NOT NULL,
  sku          TEXT NOT NULL,
  quantity     INTEGER NOT NULL,
  platform_sku TEXT,
  seen_at      INTEGER NOT NULL,
  PRIMARY KEY (kind, dc, sku)
) WITHOUT ROWID;

-- Keys touched since the last push: the only keys a push diffs.
CREATE TABLE stock_dirty (
  kind  TEXT NOT NULL,
  dc    TEXT NOT NULL,
  sku   TEXT NOT NULL,
  since INTEGER NOT NULL,
  PRIMARY KEY (kind, dc, sku)
) WITHOUT ROWID;

-- Items the portal rejected, kept with their error until they land or are superseded.
CREATE TABLE stock_failures (
  kind            TEXT NOT NULL,
  dc              TEXT NOT NULL,
  sku             TEXT NOT NULL,
  quantity        INTEGER NOT NULL,
  error           TEXT NOT NULL,
  not_found       INTEGER NOT NULL DEFAULT 0,
  attempts        INTEGER NOT NULL,
  first_failed_at INTEGER NOT NULL,
  last_failed_at  INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  PRIMARY KEY (kind, dc, sku)
) WITHOUT ROWID;
CREATE INDEX stock_failures_next ON stock_failures (next_attempt_at);

-- The portal's distribution centres, cached for row validation.
CREATE TABLE distribution_centres (
  code         TEXT PRIMARY KEY,
  is_active    INTEGER NOT NULL,
  record       TEXT NOT NULL,
  refreshed_at INTEGER NOT NULL
) WITHOUT ROWID;

-- The file ledger: every inbox file seen, by content hash.
CREATE TABLE inbox_files (
  id           INTEGER PRIMARY KEY,
  name         TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  size         INTEGER NOT NULL,
  kind         TEXT,
  status       TEXT NOT NULL,
  dest_name    TEXT,
  report       TEXT,
  received_at  INTEGER NOT NULL,
  committed_at INTEGER,
  finished_at  INTEGER
);
CREATE INDEX inbox_files_hash ON inbox_files (content_hash);

-- Every shipment seen on the ready-to-ship list.
CREATE TABLE shipments (
  order_number  TEXT PRIMARY KEY,
  record        TEXT NOT NULL,
  first_seen_at INTEGER NOT NULL,
  last_seen_at  INTEGER NOT NULL,
  left_list_at  INTEGER,
  exported_at   INTEGER,
  export_file   TEXT,
  confirmed_at  INTEGER
) WITHOUT ROWID;

-- Shipping confirmations from the ERP, each sent to the portal at most once.
CREATE TABLE shipment_confirmations (
  id                  INTEGER PRIMARY KEY,
  order_number        TEXT NOT NULL,
  action              TEXT NOT NULL,
  carrier             TEXT NOT NULL,
  tracking_number     TEXT NOT NULL,
  is_collected        INTEGER NOT NULL,
  status              TEXT NOT NULL,
  error               TEXT,
  attempts            INTEGER NOT NULL DEFAULT 0,
  sent_without_answer INTEGER NOT NULL DEFAULT 0,
  next_attempt_at     INTEGER NOT NULL,
  file_id             INTEGER,
  line                INTEGER,
  created_at          INTEGER NOT NULL,
  confirmed_at        INTEGER,
  UNIQUE (order_number, action, carrier, tracking_number)
);
CREATE INDEX shipment_confirmations_due ON shipment_confirmations (status, next_attempt_at);
`;
