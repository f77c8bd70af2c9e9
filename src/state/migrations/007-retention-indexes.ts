/**
 * Indexes for retention and for the status counts (#13): finished rows are found by age, and
 * `status` / `/metrics` count open shipments and confirmations by state without reading every
 * row of tables that grow with time. (Versions 4 to 6 are other branches' migrations.)
 */
export const retentionIndexes = `
-- Finished ledger rows by age (retention); 'committed' rows (recovery, files to keep).
CREATE INDEX IF NOT EXISTS inbox_files_finished ON inbox_files (status, finished_at);
-- The newest applied file of a kind (duplicate detection; kept by retention).
CREATE INDEX IF NOT EXISTS inbox_files_kind ON inbox_files (kind, id);

-- Confirmations by state and answer time (counts: confirmed today; retention), and by the file
-- they came from (its report; retention keeps a file whose confirmations are still open).
CREATE INDEX IF NOT EXISTS shipment_confirmations_confirmed ON shipment_confirmations (status, confirmed_at);
CREATE INDEX IF NOT EXISTS shipment_confirmations_file ON shipment_confirmations (file_id) WHERE file_id IS NOT NULL;

-- Shipments still on the ready-to-ship list and unconfirmed (counts: open, awaiting
-- confirmation), handed over (count), and confirmed (retention).
CREATE INDEX IF NOT EXISTS shipments_open ON shipments (exported_at) WHERE left_list_at IS NULL AND confirmed_at IS NULL;
CREATE INDEX IF NOT EXISTS shipments_exported ON shipments (exported_at) WHERE exported_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS shipments_confirmed ON shipments (confirmed_at) WHERE confirmed_at IS NOT NULL;

-- Stock failures that are "Product not found" (count).
CREATE INDEX IF NOT EXISTS stock_failures_not_found ON stock_failures (kind) WHERE not_found = 1;
`;
