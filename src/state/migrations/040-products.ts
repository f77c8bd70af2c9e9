/**
 * New products (issue #39, docs/products.md):
 * - `catalogue`: the portal's products as the daemon knows them, one row per SKU: its platform
 *   SKU and statuses as last seen, and — for a product the daemon created — when and by which
 *   inbox file (`created_file_id`, `created_by`: the file's original name). A product found by a
 *   read or refused as existing has `created_by_daemon` 0. The platform's review (its statuses)
 *   is followed by reading the portal; `status_at` says when they were last read.
 * - `product_requests`: every product a products file asked for that the portal was not known
 *   to have, with the body to create it from (`draft`, JSON: the POST /products body without
 *   stock) and the stock the file gave (`birth_stock`, the ERP's quantities). `state`: `queued`
 *   (to send), `sending` (the call may have gone: recorded before it, so that a crash or a reset
 *   between the call and its record is resolved by asking the portal for the SKU, never by
 *   sending again), `created`, `existing` (the portal had it), `failed` (refused: `error`).
 * - `brands`: the portal's brands as last listed, and those the daemon creates (`sending` before
 *   the call, as above), by their name as the portal compares it (`key`: trimmed, lower case).
 * - `portal_sites`, `tax_rates`: the portal's reference data, with the distribution centres of
 *   `distribution_centres`, checked before any call; `catalogue_refreshes` says when each list
 *   (`references`, `brands`) was last read.
 */
export const productsTables = `
CREATE TABLE catalogue (
  sku               TEXT PRIMARY KEY,
  platform_sku      TEXT,
  name              TEXT,
  status            TEXT,
  platform_status   TEXT,
  declined_reason   TEXT,
  created_by_daemon INTEGER NOT NULL DEFAULT 0,
  created_at        INTEGER,
  created_file_id   INTEGER,
  created_by        TEXT,
  seen_at           INTEGER NOT NULL,
  status_at         INTEGER
) WITHOUT ROWID;
CREATE INDEX catalogue_created ON catalogue (platform_status, created_at) WHERE created_by_daemon = 1;

CREATE TABLE product_requests (
  id                INTEGER PRIMARY KEY,
  file_id           INTEGER NOT NULL,
  file_name         TEXT NOT NULL,
  line              INTEGER NOT NULL,
  sku               TEXT NOT NULL,
  brand             TEXT,
  draft             TEXT NOT NULL,
  birth_stock       TEXT NOT NULL,
  short_description INTEGER NOT NULL DEFAULT 0,
  state             TEXT NOT NULL
                    CHECK (state IN ('queued', 'sending', 'created', 'existing', 'failed')),
  attempts          INTEGER NOT NULL DEFAULT 0,
  error             TEXT,
  platform_sku      TEXT,
  next_attempt_at   INTEGER NOT NULL,
  sent_at           INTEGER,
  queued_at         INTEGER NOT NULL,
  done_at           INTEGER
);
CREATE INDEX product_requests_open ON product_requests (state, next_attempt_at)
  WHERE state IN ('queued', 'sending');
CREATE INDEX product_requests_file ON product_requests (file_id);
CREATE INDEX product_requests_sku ON product_requests (sku);

CREATE TABLE brands (
  key      TEXT PRIMARY KEY,
  name     TEXT NOT NULL,
  brand_id INTEGER,
  state    TEXT NOT NULL CHECK (state IN ('listed', 'sending', 'created')),
  sent_at  INTEGER,
  seen_at  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE portal_sites (
  code         TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  refreshed_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE tax_rates (
  id           INTEGER PRIMARY KEY,
  record       TEXT NOT NULL,
  refreshed_at INTEGER NOT NULL
);

CREATE TABLE catalogue_refreshes (
  list TEXT PRIMARY KEY CHECK (list IN ('references', 'brands')),
  at   INTEGER NOT NULL
) WITHOUT ROWID;
`;
