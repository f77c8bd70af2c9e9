/**
 * The platform's review of the products the daemon created (issue #39, docs/products.md):
 * - `product_decisions`: each decision noticed (a created product turned `active` or
 *   `declined`), once, with the reason of a refusal and when the daemon noticed it; a declined
 *   one names the `outbox/` file that carries it to the ERP (`outbox_file`).
 * - `declined_files`: each `products-declined-*.json` hand-over, its exact content fixed in the
 *   transaction that recorded its decisions, so that a crash before the file is in place writes
 *   the same file again (`written_at` null until it is in `outbox/`).
 */
export const productReview = `
CREATE TABLE product_decisions (
  id          INTEGER PRIMARY KEY,
  sku         TEXT NOT NULL,
  decision    TEXT NOT NULL CHECK (decision IN ('active', 'declined')),
  reason      TEXT,
  noticed_at  INTEGER NOT NULL,
  outbox_file TEXT
);
CREATE INDEX product_decisions_sku ON product_decisions (sku, id);
CREATE INDEX product_decisions_declined ON product_decisions (noticed_at)
  WHERE decision = 'declined';

CREATE TABLE declined_files (
  name       TEXT PRIMARY KEY,
  content    TEXT NOT NULL,
  products   INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  written_at INTEGER
) WITHOUT ROWID;
CREATE INDEX declined_files_unwritten ON declined_files (created_at) WHERE written_at IS NULL;
`;
